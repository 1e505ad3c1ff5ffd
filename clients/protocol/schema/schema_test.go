package schema

import "testing"

// TestTableShape checks the transcription against docs/formats.md §2.3 and the aliases Protocol.java
// declares (an alias is the same schema value, not a copy).
func TestTableShape(t *testing.T) {
	versions := []int{3, 4, 2, 3, 1, 1, 4, 2, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 1, 2, 1}
	if len(Requests) != 21 || len(Responses) != 21 {
		t.Fatalf("%d/%d keys", len(Requests), len(Responses))
	}
	for k, n := range versions {
		if len(Requests[k]) != n || len(Responses[k]) != n {
			t.Errorf("key %d: %d/%d versions, want %d", k, len(Requests[k]), len(Responses[k]), n)
		}
		for v := range Requests[k] {
			if (Requests[k][v] == nil) != (k == 7 && v == 0) || (Responses[k][v] == nil) != (k == 7 && v == 0) {
				t.Errorf("key %d v%d: unexpected nil/non-nil schema", k, v)
			}
		}
	}
	if OldestVersion(7) != 1 || LatestVersion(1) != 3 || OldestVersion(21) != -1 || LatestVersion(-1) != -1 {
		t.Error("Oldest/LatestVersion")
	}
	for name, pair := range map[string][2]any{
		"PRODUCE_REQUEST_V2":   {ProduceRequestV2, ProduceRequestV0},
		"FETCH_REQUEST_V2":     {FetchRequestV2, FetchRequestV0},
		"FETCH_RESPONSE_V3":    {FetchResponseV3, FetchResponseV1},
		"METADATA_REQUEST_V2":  {MetadataRequestV2, MetadataRequestV1},
		"JOIN_GROUP_RESPONSE":  {JoinGroupResponseV1, JoinGroupResponseV0},
		"UPDATE_METADATA_RESP": {UpdateMetadataResponseV3, UpdateMetadataResponseV0},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s is not an alias", name)
		}
	}
	if MetadataResponseV2.String() == MetadataResponseV1.String() {
		t.Error("Metadata v2 response must differ from v1 (cluster_id)")
	}
}
