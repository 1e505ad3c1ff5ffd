package protocol

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/zkafka/zkafka/clients/protocol/types"
)

func TestParseRequestRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		h    RequestHeader
		body []byte
	}{
		"unknown key 21":           {RequestHeader{ApiKey: 21}, nil},
		"negative key":             {RequestHeader{ApiKey: -1}, nil},
		"Produce v3":               {RequestHeader{ApiKey: Produce, ApiVersion: 3}, nil},
		"Fetch v-1":                {RequestHeader{ApiKey: Fetch, ApiVersion: -1}, nil},
		"Metadata empty body":      {RequestHeader{ApiKey: Metadata, ApiVersion: 0}, nil},
		"huge array count":         {RequestHeader{ApiKey: Metadata, ApiVersion: 0}, []byte{0x7f, 0xff, 0xff, 0xff, 0, 1, 'a'}},
		"negative string":          {RequestHeader{ApiKey: GroupCoordinator}, []byte{0xff, 0xfe}},
		"negative bytes":           {RequestHeader{ApiKey: SyncGroup}, []byte{0, 1, 'g', 0, 0, 0, 1, 0, 1, 'm', 0, 0, 0, 1, 0, 1, 'm', 0x80, 0, 0, 0}},
		"null produce record set":  {RequestHeader{ApiKey: Produce, ApiVersion: 2}, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}},
		"record set too long":      {RequestHeader{ApiKey: Produce, ApiVersion: 2}, []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 1}},
		"ControlledShutdown short": {RequestHeader{ApiKey: ControlledShutdown, ApiVersion: 1}, []byte{0, 0, 1}},
	} {
		m, err := ParseRequest(tc.h, tc.body)
		if err == nil {
			t.Errorf("%s: accepted as %+v", name, m)
			continue
		}
		if !errors.Is(err, ErrInvalidRequest) || CodeOf(err) != ErrInvalidRequest.Code {
			t.Errorf("%s: error %v does not wrap ErrInvalidRequest", name, err)
		}
	}
	if _, err := NewRequest(Produce, 3); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("NewRequest(Produce, 3): %v", err)
	}
	if _, err := NewResponse(ControlledShutdown, 0); err == nil {
		t.Error("NewResponse(ControlledShutdown, 0) accepted")
	}
	if _, err := NewRequest(99, 0); err == nil {
		t.Error("NewRequest(99) accepted")
	}
}

// A count far beyond the input must fail before allocating: the check is count × smallest
// element size against the bytes left, so this does not try to make a slice of 2^31 elements.
func TestArrayCountBoundedByInput(t *testing.T) {
	body := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 20; i++ {
		if _, err := ParseRequest(RequestHeader{ApiKey: Fetch, ApiVersion: 0}, body); err == nil {
			t.Fatal("accepted")
		}
	}
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("%d bytes allocated rejecting a huge count 20 times", d)
	}
	// 3 elements of at least 6 bytes (STRING + array count) do not fit in 17 bytes.
	r := reader{buf: make([]byte, 4+17)}
	r.buf[3] = 3
	if _, ok := r.arrayLen(6, false); ok || r.err == nil {
		t.Error("3x6 bytes accepted in 17")
	}
	r = reader{buf: make([]byte, 4+18)}
	r.buf[3] = 3
	if n, ok := r.arrayLen(6, false); !ok || n != 3 {
		t.Errorf("3x6 bytes rejected in 18: %v", r.err)
	}
}

// Trailing bytes after a body are ignored, as Kafka's Schema.read does.
func TestTrailingBytesIgnored(t *testing.T) {
	m, err := ParseRequest(RequestHeader{ApiKey: Heartbeat}, []byte{0, 1, 'g', 0, 0, 0, 5, 0, 1, 'm', 0xde, 0xad})
	if err != nil {
		t.Fatal(err)
	}
	hb := m.(*HeartbeatRequest)
	if hb.GroupID != "g" || hb.GroupGenerationID != 5 || hb.MemberID != "m" {
		t.Fatalf("%+v", hb)
	}
	if !bytes.Equal(hb.AppendTo(nil), []byte{0, 1, 'g', 0, 0, 0, 5, 0, 1, 'm'}) {
		t.Fatal("re-encoding")
	}
}

func TestDecodeErrorsWrapSchemaException(t *testing.T) {
	err := (&JoinGroupRequest{Version: 1}).ReadFrom([]byte{0, 5, 'a'})
	if !errors.Is(err, types.ErrSchema) {
		t.Fatalf("%v", err)
	}
}

// TestStringOver32767BytesIsAnEncodeError: a STRING longer than its INT16 length can say fails
// the encoding (0.10.2's Type.STRING.write throws SchemaException) instead of being cut, in a
// body and in a request header's client id; 32767 bytes still encode.
func TestStringOver32767BytesIsAnEncodeError(t *testing.T) {
	long := strings.Repeat("x", 32768)
	if _, err := Marshal(nil, &MetadataRequest{Version: 1, Topics: []string{long}}); !errors.Is(err, ErrStringTooLong) {
		t.Errorf("Marshal: %v", err)
	}
	var buf bytes.Buffer
	if _, err := WriteRequest(&buf, RequestHeader{ApiKey: Metadata, ApiVersion: 1}, &MetadataRequest{Version: 1, Topics: []string{long}}); !errors.Is(err, ErrStringTooLong) || buf.Len() != 0 {
		t.Errorf("WriteRequest body: %v, %d bytes written", err, buf.Len())
	}
	if _, err := WriteRequest(&buf, RequestHeader{ApiKey: Metadata, ApiVersion: 1, ClientID: &long}, &MetadataRequest{Version: 1}); !errors.Is(err, ErrStringTooLong) || buf.Len() != 0 {
		t.Errorf("WriteRequest client id: %v, %d bytes written", err, buf.Len())
	}
	member := long
	if _, err := WriteResponse(&buf, ResponseHeader{CorrelationID: 1}, &JoinGroupResponse{Version: 1, MemberID: member}); !errors.Is(err, ErrStringTooLong) || buf.Len() != 0 {
		t.Errorf("WriteResponse: %v, %d bytes written", err, buf.Len())
	}
	max := long[:32767]
	b, err := Marshal(nil, &MetadataRequest{Version: 1, Topics: []string{max}})
	if err != nil {
		t.Fatal(err)
	}
	var back MetadataRequest
	back.Version = 1
	if err := back.ReadFrom(b); err != nil || len(back.Topics) != 1 || back.Topics[0] != max {
		t.Errorf("32767 bytes did not round-trip: %v", err)
	}
}
