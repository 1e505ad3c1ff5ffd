package protocol

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

// unhex reads an annotated hex dump: everything after '#' on a line is a comment, spaces and '|'
// are ignored.
func unhex(t *testing.T, s string) []byte {
	t.Helper()
	var clean strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		clean.WriteString(strings.NewReplacer(" ", "", "|", "", "\t", "").Replace(line))
	}
	b, err := hex.DecodeString(clean.String())
	if err != nil {
		t.Fatalf("bad golden hex: %v", err)
	}
	return b
}

// checkGolden asserts m encodes to want and want decodes back to m.
func checkGolden(t *testing.T, m Message, want []byte, response bool) {
	t.Helper()
	got := m.AppendTo(nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("%T v%d encodes to\n%x\nwant\n%x", m, m.GetVersion(), got, want)
	}
	var back Message
	if response {
		back = newResponseMessage(m.Key(), m.GetVersion())
	} else {
		back = newRequestMessage(m.Key(), m.GetVersion())
	}
	if err := back.ReadFrom(want); err != nil {
		t.Fatal(err)
	}
	if re := back.AppendTo(nil); !bytes.Equal(re, want) {
		t.Fatalf("decode+encode of golden differs: %x", re)
	}
}

// docs/formats.md §2.3: the exact ApiVersions v0 body a 0.10.2 broker sends.
const apiVersionsV0Golden = `
0000 00000015          # error_code 0, 21 entries
0000 0000 0002 | 0001 0000 0003 | 0002 0000 0001 | 0003 0000 0002 | 0004 0000 0000
0005 0000 0000 | 0006 0000 0003 | 0007 0001 0001 | 0008 0000 0002 | 0009 0000 0002
000a 0000 0000 | 000b 0000 0001 | 000c 0000 0000 | 000d 0000 0000 | 000e 0000 0000
000f 0000 0000 | 0010 0000 0000 | 0011 0000 0000 | 0012 0000 0000 | 0013 0000 0001
0014 0000 0000`

func TestApiVersionsResponseV0Golden(t *testing.T) {
	want := unhex(t, apiVersionsV0Golden)
	if len(want) != 132 {
		t.Fatalf("golden is %d bytes, docs/formats.md §2.3 says 132", len(want))
	}
	checkGolden(t, ApiVersionsResponseDefault(), want, true)
	if got := ApiVersionsResponseFor(0).AppendTo(nil); !bytes.Equal(got, want) {
		t.Fatalf("ApiVersionsResponseFor(0) = %x", got)
	}
	// The default is a copy: changing it does not change the table.
	r := ApiVersionsResponseDefault()
	r.ApiVersions[0].MaxVersion = 99
	if SupportedVersions[0].MaxVersion != 2 {
		t.Fatal("ApiVersionsResponseDefault shares SupportedVersions")
	}
}

// docs/formats.md §2.3: any version other than 0 gets error 35 and an empty list, in the v0 layout;
// the request body is not parsed (here: sarama's v3 body, a compact string and tagged fields).
func TestApiVersionsUnsupportedVersion(t *testing.T) {
	for _, v := range []int16{1, 2, 3, 4, 77, -1} {
		cid := "sarama"
		h := RequestHeader{ApiKey: ApiVersions, ApiVersion: v, CorrelationID: 0x01020304, ClientID: &cid}
		body := []byte{0x07, 's', 'a', 'r', 'a', 'm', 'a', 0x04, '1', '.', '6', 0x00} // not a v0 body
		req, err := ParseRequest(h, body)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if req.Key() != ApiVersions || req.GetVersion() != v {
			t.Fatalf("v%d: got %T v%d", v, req, req.GetVersion())
		}
		resp := ApiVersionsResponseFor(req.GetVersion())
		if got, want := resp.AppendTo(nil), unhex(t, "0023 00000000"); !bytes.Equal(got, want) {
			t.Fatalf("v%d: body %x, want %x", v, got, want)
		}
		var frame bytes.Buffer
		if _, err := WriteResponse(&frame, ResponseHeader{CorrelationID: h.CorrelationID}, resp); err != nil {
			t.Fatal(err)
		}
		want := unhex(t, `0000000a  # size 10
			01020304                # correlation id
			0023 00000000           # error 35, empty array`)
		if !bytes.Equal(frame.Bytes(), want) {
			t.Fatalf("v%d: frame %x, want %x", v, frame.Bytes(), want)
		}
	}
}

func TestRequestHeaderGolden(t *testing.T) {
	cid := "c1"
	h := RequestHeader{ApiKey: Fetch, ApiVersion: 3, CorrelationID: -2, ClientID: &cid}
	want := unhex(t, `0001 0003  # Fetch v3
		fffffffe             # correlation id -2
		0002 6331            # client_id "c1"
		abcd                 # body`)
	if got := append(h.AppendTo(nil), 0xab, 0xcd); !bytes.Equal(got, want) {
		t.Fatalf("%x", got)
	}
	got, rest, err := ReadRequestHeader(want)
	if err != nil || *got.ClientID != "c1" || got.ApiKey != Fetch || got.CorrelationID != -2 || !bytes.Equal(rest, []byte{0xab, 0xcd}) {
		t.Fatalf("%+v %x %v", got, rest, err)
	}
	// null client id
	got, _, err = ReadRequestHeader(unhex(t, "0012 0000 00000001 ffff"))
	if err != nil || got.ClientID != nil || got.ClientIDOrEmpty() != "" {
		t.Fatalf("%+v %v", got, err)
	}
	// short header
	if _, _, err := ReadRequestHeader(unhex(t, "0012 0000 0000")); err == nil {
		t.Fatal("short header accepted")
	}
	if _, _, err := ReadRequestHeader(unhex(t, "0012 0000 00000001 0005 6162")); err == nil {
		t.Fatal("client id longer than the frame accepted")
	}
	rh, rest, err := ReadResponseHeader(unhex(t, "0000002a ff"))
	if err != nil || rh.CorrelationID != 42 || len(rest) != 1 || !bytes.Equal(rh.AppendTo(nil), unhex(t, "0000002a")) {
		t.Fatalf("%+v %x %v", rh, rest, err)
	}
}

func TestProduceRequestV2Golden(t *testing.T) {
	set := unhex(t, "0102030405")
	m := &ProduceRequest{Version: 2, Acks: -1, Timeout: 30000, TopicData: []ProduceRequestTopic{
		{Topic: "t", Data: []ProduceRequestTopicPartition{{Partition: 1, RecordSet: record.NewMemoryRecords(set)}}},
	}}
	checkGolden(t, m, unhex(t, `
		ffff                # acks -1
		00007530            # timeout 30000
		00000001            # topic_data: 1 topic
		  0001 74           #   topic "t"
		  00000001          #   data: 1 partition
		    00000001        #     partition 1
		    00000005        #     record_set size 5
		    0102030405      #     message set bytes (opaque here)
	`), false)
}

func TestFetchRequestV3Golden(t *testing.T) {
	m := &FetchRequest{Version: 3, ReplicaID: -1, MaxWaitTime: 500, MinBytes: 1, MaxBytes: 52428800,
		Topics: []FetchRequestTopic{{Topic: "ab", Partitions: []FetchRequestTopicPartition{{Partition: 0, FetchOffset: 10, MaxBytes: 1048576}}}}}
	checkGolden(t, m, unhex(t, `
		ffffffff            # replica_id -1 (consumer)
		000001f4            # max_wait_time 500
		00000001            # min_bytes 1
		03200000            # max_bytes 50 MiB (v3 only, after min_bytes)
		00000001 0002 6162  # 1 topic "ab"
		00000001            # 1 partition
		00000000            #   partition 0
		000000000000000a    #   fetch_offset 10
		00100000            #   max_bytes 1 MiB
	`), false)
	m.Version = 2 // the same request without the top-level max_bytes
	if got := m.AppendTo(nil); len(got) != 4+4+4+4+2+2+4+4+8+4 {
		t.Fatalf("v2 is %d bytes", len(got))
	}
}

func TestFetchResponseV1Golden(t *testing.T) {
	m := &FetchResponse{Version: 1, ThrottleTimeMs: 7, Responses: []FetchResponseTopic{{Topic: "t",
		PartitionResponses: []FetchResponseTopicPartition{{
			PartitionHeader: FetchResponseTopicPartitionHeader{Partition: 2, ErrorCode: 0, HighWatermark: 100},
			RecordSet:       record.NewMemoryRecords(unhex(t, "aabb")),
		}}}}}
	checkGolden(t, m, unhex(t, `
		00000007            # throttle_time_ms 7 (v1+: first field)
		00000001 0001 74    # 1 topic "t"
		00000001            # 1 partition
		00000002 0000       #   partition 2, error_code 0 (partition_header adds no bytes)
		0000000000000064    #   high_watermark 100
		00000002 aabb       #   record_set
	`), true)
}

func TestMetadataResponseV2Golden(t *testing.T) {
	rack, cluster := "r1", "cid"
	m := &MetadataResponse{Version: 2,
		Brokers:      []MetadataResponseBroker{{NodeID: 1, Host: "h", Port: 9092, Rack: &rack}},
		ClusterID:    &cluster,
		ControllerID: 1,
		TopicMetadata: []MetadataResponseTopic{{TopicErrorCode: 0, Topic: "t", IsInternal: false,
			PartitionMetadata: []MetadataResponseTopicPartition{{PartitionErrorCode: 0, PartitionID: 0, Leader: 1, Replicas: []int32{1}, Isr: []int32{1}}}}},
	}
	checkGolden(t, m, unhex(t, `
		00000001                   # 1 broker
		00000001 0001 68 00002384  #   node 1, host "h", port 9092
		0002 7231                  #   rack "r1"
		0003 636964                # cluster_id "cid" (v2, before controller_id)
		00000001                   # controller_id 1
		00000001                   # 1 topic
		0000 0001 74 00            #   error 0, "t", is_internal false
		00000001                   #   1 partition
		0000 00000000 00000001     #     error 0, partition 0, leader 1
		00000001 00000001          #     replicas [1]
		00000001 00000001          #     isr [1]
	`), true)
}

func TestUpdateMetadataRequestV3Golden(t *testing.T) {
	m := &UpdateMetadataRequest{Version: 3, ControllerID: 1, ControllerEpoch: 2,
		PartitionStates: []UpdateMetadataRequestPartitionState{},
		LiveBrokers: []UpdateMetadataRequestLiveBroker{{ID: 1,
			EndPoints: []UpdateMetadataRequestLiveBrokerEndPoint{{Port: 9092, Host: "h", ListenerName: "PLAINTEXT", SecurityProtocolType: 0}}}},
	}
	got := m.AppendTo(nil)
	want := unhex(t, `
		00000001 00000002          # controller_id 1, controller_epoch 2
		00000000                   # no partition states
		00000001 00000001          # 1 live broker, id 1
		00000001                   #   1 end point
		00002384 0001 68           #     port 9092 BEFORE host "h"
		0009 504c41494e54455854    #     listener_name "PLAINTEXT" (v3)
		0000                       #     security_protocol_type 0
		ffff                       #   rack null (v2+)
	`)
	if !bytes.Equal(got, want) {
		t.Fatalf("%x\nwant\n%x", got, want)
	}
}
