package protocol

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

func TestErrorCodes(t *testing.T) {
	if ErrorForCode(0) != nil {
		t.Fatal("code 0 must be nil")
	}
	all := AllErrors()
	if len(all) != 45 {
		t.Fatalf("%d errors, 0.10.2 has 45 (-1 and 1..44)", len(all))
	}
	seen := map[int16]bool{}
	for _, e := range all {
		if seen[e.Code] {
			t.Fatalf("code %d twice", e.Code)
		}
		seen[e.Code] = true
		if got := ErrorForCode(e.Code); got != e {
			t.Errorf("ErrorForCode(%d) = %v", e.Code, got)
		}
		if CodeOf(e) != e.Code || CodeOf(fmt.Errorf("ctx: %w", e)) != e.Code {
			t.Errorf("CodeOf(%s) wrong", e.Name)
		}
	}
	for c := int16(-1); c <= 44; c++ {
		if c != 0 && !seen[c] {
			t.Errorf("code %d missing", c)
		}
	}
	for _, c := range []int16{45, 100, -2, -32768, 32767} {
		if ErrorForCode(c) != ErrUnknown {
			t.Errorf("ErrorForCode(%d) = %v, want UNKNOWN", c, ErrorForCode(c))
		}
	}
	if CodeOf(nil) != 0 || CodeOf(io.EOF) != -1 {
		t.Error("CodeOf(nil) must be 0 and CodeOf(non-Kafka) -1")
	}
	e := Errorf(ErrInvalidPartitions, "%d partitions", -3)
	if CodeOf(e) != 37 || !errors.Is(e, ErrInvalidPartitions) {
		t.Errorf("Errorf lost the code: %v", e)
	}
	if ErrNotLeaderForPartition.Name != "NOT_LEADER_FOR_PARTITION" || ErrUnsupportedVersion.Code != 35 {
		t.Error("names/codes")
	}
}

// The retriable set of docs/formats.md §2.4 (exception classes extending RetriableException).
func TestRetriableErrors(t *testing.T) {
	want := map[int16]bool{2: true, 3: true, 5: true, 6: true, 7: true, 13: true, 14: true, 15: true, 16: true, 19: true, 20: true, 41: true}
	for _, e := range AllErrors() {
		if e.Retriable != want[e.Code] {
			t.Errorf("%s retriable = %v", e.Name, e.Retriable)
		}
	}
}

func TestApiKeysString(t *testing.T) {
	for k, want := range map[ApiKeys]string{Produce: "Produce", ListOffsets: "Offsets", UpdateMetadata: "UpdateMetadata",
		ControlledShutdown: "ControlledShutdown", GroupCoordinator: "GroupCoordinator", DeleteTopics: "DeleteTopics", 21: "ApiKeys(21)", -1: "ApiKeys(-1)"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", int16(k), k.String(), want)
		}
	}
	if MaxApiKey != 20 || ApiKeys(21).IsValid() || !ApiKeys(0).IsValid() {
		t.Error("key range")
	}
}

// TestCodeOfSentinelsAndRecordErrors: a package's sentinel made with NewSentinel keeps its text
// and gets its code through CodeOf, wrapped or not; clients/record's exception kinds (below this
// package) are mapped by CodeOf itself; anything else is UNKNOWN.
func TestCodeOfSentinelsAndRecordErrors(t *testing.T) {
	s := NewSentinel("offset out of range", ErrOffsetOutOfRange)
	wrapped := fmt.Errorf("read t-0 at 9: %w", s)
	if s.Error() != "offset out of range" || CodeOf(s) != 1 || CodeOf(wrapped) != 1 || !errors.Is(wrapped, s) || !errors.Is(wrapped, ErrOffsetOutOfRange) {
		t.Errorf("sentinel: %q code %d, wrapped code %d", s, CodeOf(s), CodeOf(wrapped))
	}
	cases := map[error]int16{
		fmt.Errorf("at 12: %w", record.ErrCorruptRecord):          2,
		record.ErrInvalidRecord:                                   2,
		fmt.Errorf("%w: 2000000 bytes", record.ErrRecordTooLarge): 10,
		errors.New("disk on fire"):                                -1,
		nil:                                                       0,
	}
	for err, want := range cases {
		if got := CodeOf(err); got != want {
			t.Errorf("CodeOf(%v) = %d, want %d", err, got, want)
		}
	}
}
