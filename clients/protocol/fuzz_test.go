package protocol

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// seedFrames returns request frames (header + body, no size prefix) for the fuzz corpus: a
// populated request of every key and version, and every capture of a real client under
// testdata/captures (helper B2's recorder), when present.
func seedFrames(t testing.TB) [][]byte {
	var out [][]byte
	cid := "fuzz"
	for _, kv := range allVersions() {
		m, _ := sample(t, kv.key, kv.version, false)
		h := RequestHeader{ApiKey: kv.key, ApiVersion: kv.version, CorrelationID: 1, ClientID: &cid}
		out = append(out, m.AppendTo(h.AppendTo(nil)))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "captures", "*", "*.bin"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// checkStable asserts that a decoded message re-encodes to bytes that decode to the same value:
// decode(encode(decode(x))) == decode(x). Non-canonical inputs (a boolean 2, a null string length
// of -7, trailing bytes) are allowed to re-encode differently, but never to change meaning.
func checkStable(t *testing.T, m Message, response bool) {
	enc := m.AppendTo(nil)
	var again Message
	if response {
		again = newResponseMessage(m.Key(), m.GetVersion())
	} else {
		again = newRequestMessage(m.Key(), m.GetVersion())
	}
	if err := again.ReadFrom(enc); err != nil {
		t.Fatalf("%T v%d: re-encoding does not decode: %v", m, m.GetVersion(), err)
	}
	if !reflect.DeepEqual(again, m) {
		t.Fatalf("%T v%d: decode(encode(m)) != m", m, m.GetVersion())
	}
	if n := SizeOf(m); n != len(enc) {
		t.Fatalf("SizeOf %d != %d", n, len(enc))
	}
}

// FuzzParseRequest feeds arbitrary frames through the broker's parsing path.
func FuzzParseRequest(f *testing.F) {
	for _, b := range seedFrames(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		h, body, err := ReadRequestHeader(frame)
		if err != nil {
			return
		}
		m, err := ParseRequest(h, body)
		if err != nil {
			return
		}
		if m.Key() != h.ApiKey || m.GetVersion() != h.ApiVersion {
			t.Fatalf("parsed %s v%d from a %s v%d header", m.Key(), m.GetVersion(), h.ApiKey, h.ApiVersion)
		}
		if h.ApiKey == ApiVersions && !IsSupported(ApiVersions, h.ApiVersion) {
			return // body deliberately not parsed
		}
		checkStable(t, m, false)
	})
}

// FuzzReadFrom decodes arbitrary bodies as any message: byte 0 picks request (even) or response
// (odd), byte 1 the key, byte 2 the version (both modulo their ranges); the rest is the body.
func FuzzReadFrom(f *testing.F) {
	for _, kv := range allVersions() {
		for i, response := range []bool{false, true} {
			m, _ := sample(f, kv.key, kv.version, response)
			min := SupportedVersions[kv.key].MinVersion
			f.Add(append([]byte{byte(i), byte(kv.key), byte(kv.version - min)}, m.AppendTo(nil)...))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		response := data[0]%2 == 1
		key := ApiKeys(int(data[1]) % (int(MaxApiKey) + 1))
		sv := SupportedVersions[key]
		version := sv.MinVersion + int16(int(data[2])%int(sv.MaxVersion-sv.MinVersion+1))
		var m Message
		if response {
			m = newResponseMessage(key, version)
		} else {
			m = newRequestMessage(key, version)
		}
		if err := m.ReadFrom(data[3:]); err != nil {
			return
		}
		checkStable(t, m, response)
	})
}

// FuzzConsumerProtocol decodes arbitrary subscription and assignment bytes.
func FuzzConsumerProtocol(f *testing.F) {
	f.Add((&ConsumerProtocolSubscription{Topics: []string{"a"}, UserData: []byte{}}).AppendTo(nil))
	f.Add((&ConsumerProtocolAssignment{UserData: []byte{1}}).AppendTo(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s ConsumerProtocolSubscription
		if s.ReadFrom(data) == nil {
			var again ConsumerProtocolSubscription
			if err := again.ReadFrom(s.AppendTo(nil)); err != nil || !reflect.DeepEqual(again, s) {
				t.Fatalf("subscription not stable: %v", err)
			}
		}
		var a ConsumerProtocolAssignment
		if a.ReadFrom(data) == nil {
			var again ConsumerProtocolAssignment
			if err := again.ReadFrom(a.AppendTo(nil)); err != nil || len(again.Partitions) != len(a.Partitions) {
				t.Fatalf("assignment not stable: %v", err)
			}
		}
	})
}
