package consumer

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients"
	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
	"github.com/zkafka/zkafka/clients/serialization"
)

func quietLog() *logrus.Entry {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return logrus.NewEntry(l)
}

// recordSet builds a message-format v1 set of values at offsets first, first+1, ...
func recordSet(t *testing.T, first int64, values ...string) []byte {
	t.Helper()
	var buf []byte
	for i, v := range values {
		r, err := record.BuildRecord(record.MagicValueV1, 1000+int64(i), nil, []byte(v), record.NONE, record.CreateTime)
		if err != nil {
			t.Fatal(err)
		}
		buf = record.AppendLogEntryHeader(buf, first+int64(i), len(r))
		buf = append(buf, r...)
	}
	return buf
}

func newTestFetcher(t *testing.T, s *SubscriptionState, checkCrcs bool, maxPollRecords int) *Fetcher[[]byte, string] {
	md := clients.NewMetadata(100, 300000, false, quietLog())
	return NewFetcher[[]byte, string](nil, md, s, FetcherConfig{FetchSize: 1 << 20, MaxPollRecords: maxPollRecords, CheckCrcs: checkCrcs},
		serialization.ByteArrayDeserializer{}, &serialization.StringDeserializer{}, nil, common.SystemTime{}, quietLog())
}

func completed(tp common.TopicPartition, fetchOffset int64, code int16, hw int64, set []byte) *completedFetch {
	return &completedFetch{tp: tp, fetchOffset: fetchOffset, data: &protocol.FetchResponseTopicPartition{
		PartitionHeader: protocol.FetchResponseTopicPartitionHeader{Partition: tp.Partition, ErrorCode: code, HighWatermark: hw},
		RecordSet:       record.NewMemoryRecords(set)}}
}

// A message cut at the end of a fetch response is left for the next fetch; max.poll.records
// bounds each call; a corrupted record fails check.crcs (and passes without it); a fetch whose
// only message is cut is RecordTooLargeException; OFFSET_OUT_OF_RANGE resets with a policy
// and fails without one.
func TestFetcherParsesCompletedFetches(t *testing.T) {
	tp := common.TopicPartition{Topic: "t", Partition: 0}
	s := NewSubscriptionState(ResetEarliest)
	if err := s.AssignFromUser([]common.TopicPartition{tp}); err != nil {
		t.Fatal(err)
	}
	s.Seek(tp, 5)
	f := newTestFetcher(t, s, true, 2)
	set := recordSet(t, 5, "a", "b", "c")
	f.completed = append(f.completed, completed(tp, 5, 0, 9, set[:len(set)-3])) // "c" cut short
	got, _, err := f.FetchedRecords()
	if err != nil || len(got[tp]) != 2 || got[tp][0].Value != "a" || got[tp][1].Offset != 6 || got[tp][0].Timestamp != 1000 {
		t.Fatalf("first poll %v %v", got, err)
	}
	got, _, err = f.FetchedRecords()
	if err != nil || len(got) != 0 || *s.Position(tp) != 7 || s.PartitionLag(tp) != 2 {
		t.Fatalf("second poll %v %v position %v", got, err, s.Position(tp))
	}
	// corrupt "c": its value byte changes, the CRC no longer matches
	bad := recordSet(t, 7, "c")
	bad[len(bad)-1] ^= 0xff
	f.completed = append(f.completed, completed(tp, 7, 0, 9, bad))
	if _, _, err := f.FetchedRecords(); err == nil || !errors.Is(err, record.ErrCorruptRecord) && !strings.Contains(err.Error(), "is invalid") {
		t.Fatalf("corrupt record with check.crcs: %v", err)
	}
	f.checkCrcs = false
	f.completed = append(f.completed, completed(tp, 7, 0, 9, bad))
	if got, _, err := f.FetchedRecords(); err != nil || len(got[tp]) != 1 {
		t.Fatalf("corrupt record without check.crcs: %v %v", got, err)
	}
	// only a partial message: larger than max.partition.fetch.bytes
	big := recordSet(t, 8, "dddddddddd")
	f.completed = append(f.completed, completed(tp, 8, 0, 9, big[:20]))
	var tooLarge *RecordTooLargeException
	if _, _, err := f.FetchedRecords(); !errors.As(err, &tooLarge) || tooLarge.Offsets[tp] != 8 {
		t.Fatalf("partial only: %v", err)
	}
	// out of range with a reset policy: reset needed; without: OffsetOutOfRangeException
	f.completed = append(f.completed, completed(tp, 8, protocol.CodeOf(protocol.ErrOffsetOutOfRange), -1, nil))
	if _, _, err := f.FetchedRecords(); err != nil || !s.IsOffsetResetNeeded(tp) {
		t.Fatalf("out of range with policy: %v", err)
	}
	s2 := NewSubscriptionState(ResetNone)
	_ = s2.AssignFromUser([]common.TopicPartition{tp})
	s2.Seek(tp, 8)
	f2 := newTestFetcher(t, s2, true, 10)
	f2.completed = append(f2.completed, completed(tp, 8, protocol.CodeOf(protocol.ErrOffsetOutOfRange), -1, nil))
	var oor *OffsetOutOfRangeException
	if _, _, err := f2.FetchedRecords(); !errors.As(err, &oor) || oor.Offsets[tp] != 8 ||
		err.Error() != "Offsets out of range with no configured reset policy for partitions: {t-0=8}" {
		t.Fatalf("out of range without policy: %v", err)
	}
}
