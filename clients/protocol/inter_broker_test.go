package protocol

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol/schema"
	"github.com/zkafka/zkafka/clients/protocol/types"
)

func sampleOffsetsForLeaderEpoch() (*OffsetsForLeaderEpochRequest, *OffsetsForLeaderEpochResponse) {
	req := &OffsetsForLeaderEpochRequest{Topics: []OffsetsForLeaderEpochRequestTopic{
		{Topic: "t", Partitions: []OffsetsForLeaderEpochRequestTopicPartition{{PartitionID: 0, LeaderEpoch: 5}, {PartitionID: 2, LeaderEpoch: -1}}},
	}}
	resp := &OffsetsForLeaderEpochResponse{Topics: []OffsetsForLeaderEpochResponseTopic{
		{Topic: "t", Partitions: []OffsetsForLeaderEpochResponseTopicPartition{
			{ErrorCode: 0, PartitionID: 0, EndOffset: 1234}, {ErrorCode: 6, PartitionID: 2, EndOffset: -1}}},
	}}
	return req, resp
}

// Kafka 0.11's OffsetsForLeaderEpoch v0 bytes, field by field, and the runtime table agrees with
// the generated codec.
func TestOffsetsForLeaderEpochGolden(t *testing.T) {
	req, resp := sampleOffsetsForLeaderEpoch()
	wantReq := []byte{
		0, 0, 0, 1, // topics
		0, 1, 't',
		0, 0, 0, 2, // partitions
		0, 0, 0, 0, 0, 0, 0, 5, // partition_id 0, leader_epoch 5
		0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, // partition_id 2, leader_epoch -1
	}
	wantResp := []byte{
		0, 0, 0, 1,
		0, 1, 't',
		0, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x04, 0xd2, // error 0, partition 0, end_offset 1234
		0, 6, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // NOT_LEADER, partition 2, -1
	}
	for _, tc := range []struct {
		m    Message
		want []byte
		s    *types.Schema
	}{
		{req, wantReq, schema.InterBrokerRequests[23][0]},
		{resp, wantResp, schema.InterBrokerResponses[23][0]},
	} {
		enc := tc.m.AppendTo(nil)
		if !bytes.Equal(enc, tc.want) {
			t.Fatalf("%T: %x, want %x", tc.m, enc, tc.want)
		}
		v, n, err := tc.s.Read(enc)
		if err != nil || n != len(enc) {
			t.Fatalf("%T: runtime schema read %d of %d bytes: %v", tc.m, n, len(enc), err)
		}
		if back, err := tc.s.Write(nil, v); err != nil || !bytes.Equal(back, enc) {
			t.Fatalf("%T: runtime schema re-encodes %x (%v)", tc.m, back, err)
		}
		again := reflect.New(reflect.TypeOf(tc.m).Elem()).Interface().(Message)
		if err := again.ReadFrom(enc); err != nil || !reflect.DeepEqual(again, tc.m) {
			t.Fatalf("%T: decoded %+v (%v)", tc.m, again, err)
		}
		for i := 0; i < len(enc); i++ {
			if err := again.ReadFrom(enc[:i]); !errors.Is(err, types.ErrSchema) {
				t.Fatalf("%T: %d-byte prefix: %v", tc.m, i, err)
			}
		}
	}
	if req.Key() != OffsetForLeaderEpoch || OffsetForLeaderEpoch.String() != "OffsetForLeaderEpoch" {
		t.Fatalf("key %d named %q", req.Key(), req.Key())
	}
}

// Key 23 stays outside 0.10.2's protocol: not valid, not advertised, and ParseRequest refuses
// it as it refuses any unknown key (the broker closes the connection); only
// ParseInterBrokerRequest decodes it.
func TestOffsetForLeaderEpochIsNotA0102Key(t *testing.T) {
	if OffsetForLeaderEpoch.IsValid() || IsSupported(OffsetForLeaderEpoch, 0) {
		t.Fatal("key 23 is a 0.10.2 key")
	}
	for _, sv := range ApiVersionsResponseDefault().ApiVersions {
		if sv.ApiKey > int16(MaxApiKey) {
			t.Fatalf("ApiVersions advertises key %d", sv.ApiKey)
		}
	}
	if len(SupportedVersions) != 21 || len(schema.Requests) != 21 {
		t.Fatalf("%d advertised keys, %d in the 0.10.2 table", len(SupportedVersions), len(schema.Requests))
	}
	req, _ := sampleOffsetsForLeaderEpoch()
	cid := "ReplicaFetcherThread-0-1"
	h := RequestHeader{ApiKey: OffsetForLeaderEpoch, ApiVersion: 0, CorrelationID: 7, ClientID: &cid}
	body := req.AppendTo(nil)
	if _, err := ParseRequest(h, body); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("ParseRequest(key 23) = %v, want ErrInvalidRequest", err)
	}
	if _, err := NewRequest(OffsetForLeaderEpoch, 0); err == nil {
		t.Fatal("NewRequest(key 23) succeeded")
	}
	m, err := ParseInterBrokerRequest(h, body)
	if err != nil || !reflect.DeepEqual(m, req) {
		t.Fatalf("ParseInterBrokerRequest = %+v, %v", m, err)
	}
	h.ApiVersion = 1
	if _, err := ParseInterBrokerRequest(h, body); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("v1 accepted: %v", err)
	}
	h.ApiVersion, h.ApiKey = 0, Fetch
	if _, err := ParseInterBrokerRequest(h, body); !errors.Is(err, ErrInvalidRequest) {
		t.Fatalf("Fetch accepted as an extension: %v", err)
	}
	if s := (EpochEndOffset{ErrorCode: 6, EndOffset: -1}).String(); s != "EpochEndOffset{error=NOT_LEADER_FOR_PARTITION, endOffset=-1}" {
		t.Fatal(s)
	}
}

// FuzzOffsetsForLeaderEpoch decodes arbitrary bytes as the key 23 request (through the broker's
// extension parser) and response (as the follower reads it).
func FuzzOffsetsForLeaderEpoch(f *testing.F) {
	req, resp := sampleOffsetsForLeaderEpoch()
	f.Add(req.AppendTo(nil))
	f.Add(resp.AppendTo(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := RequestHeader{ApiKey: OffsetForLeaderEpoch}
		if m, err := ParseInterBrokerRequest(h, data); err == nil {
			again := &OffsetsForLeaderEpochRequest{}
			if err := again.ReadFrom(m.AppendTo(nil)); err != nil || !reflect.DeepEqual(again, m) {
				t.Fatalf("request not stable: %v", err)
			}
		}
		var r OffsetsForLeaderEpochResponse
		if r.ReadFrom(data) == nil {
			var again OffsetsForLeaderEpochResponse
			if err := again.ReadFrom(r.AppendTo(nil)); err != nil || !reflect.DeepEqual(again, r) {
				t.Fatalf("response not stable: %v", err)
			}
		}
	})
}
