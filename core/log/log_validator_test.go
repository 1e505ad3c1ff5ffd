package log

// LogValidator paths (zkafka; the behaviours of Kafka 0.10.2's LogValidatorTest and
// BrokerCompressionTest as they show through Log.Append), plus LogConfig, retention and the
// ListOffsets lookups.
//
//	| Kafka test                                             | Go test                         |
//	|--------------------------------------------------------|---------------------------------|
//	| LogValidatorTest.testLogAppendTime*                    | TestLogValidatorPaths/logappendtime_* |
//	| LogValidatorTest.testCreateTime*, testInvalidCreateTime*| TestLogValidatorPaths/createtime_* |
//	| LogValidatorTest.testAbsoluteOffsetAssignment*, testRelativeOffsetAssignment* | TestLogValidatorPaths/offsets_* |
//	| LogValidatorTest.testOffsetAssignmentAfterUpConversion*/DownConversion* | TestLogValidatorPaths/convert_* |
//	| (zkafka) shallow CRC check on append                   | TestLogValidatorPaths/corrupt_wrapper_crc |
//	| BrokerCompressionTest.testBrokerSideCompression        | TestLogValidatorPaths/compression_type_* |
//	| LogConfigTest.testFromPropsEmpty / testFromPropsInvalid / testKafkaConfigToProps | TestLogConfigParse |

import (
	"errors"
	"strconv"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

func shallow(t *testing.T, l *Log) []record.LogEntry {
	t.Helper()
	var out []record.LogEntry
	for _, s := range l.LogSegments() {
		buf := make([]byte, s.Log().SizeInBytes())
		_, err := s.Log().ReadInto(buf, 0)
		must(t, err)
		for e, err := range record.NewMemoryRecords(buf).ShallowEntries() {
			must(t, err)
			must(t, e.Record.EnsureValid())
			out = append(out, e)
		}
	}
	return out
}

func TestLogValidatorPaths(t *testing.T) {
	t.Run("offsets_uncompressed_in_place", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, nil, 0)
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "a"))
		in := msgSet(t, 1000, e.tm.Milliseconds()+5, "b", "c", "d") // producer offsets are ignored
		info := leaderAppend(t, l, in)
		if info.FirstOffset != 1 || info.LastOffset != 3 || info.MaxTimestamp != e.tm.Milliseconds()+5 || info.LogAppendTime != -1 {
			t.Fatalf("info %+v", info)
		}
		// The in-place path rewrote the caller's buffer.
		var offs []int64
		for le, _ := range in.ShallowEntries() {
			offs = append(offs, le.Offset)
		}
		if len(offs) != 3 || offs[0] != 1 || offs[2] != 3 {
			t.Fatalf("offsets in the caller's buffer: %v", offs)
		}
	})
	t.Run("offsets_compressed_in_place", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, nil, 0)
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "a", "b"))
		ts := e.tm.Milliseconds()
		in := msgSetCodec(t, record.MagicValueV1, record.GZIP, 0, ts, "x", "y", "z")
		origLen := in.SizeInBytes()
		info := leaderAppend(t, l, in)
		if info.FirstOffset != 2 || info.LastOffset != 4 || info.OffsetOfMaxTimestamp != 4 || info.SourceCodec != record.GZIP || info.TargetCodec != record.GZIP {
			t.Fatalf("info %+v", info)
		}
		es := shallow(t, l)
		w := es[len(es)-1]
		if w.Offset != 4 || !w.IsCompressed() || w.Size() != origLen || w.Record.Timestamp() != ts {
			t.Fatalf("wrapper kept in place: offset %d size %d/%d ts %d", w.Offset, w.Size(), origLen, w.Record.Timestamp())
		}
		eqOffsets(t, readLog(t, l, 2, 4096, nil), 2, 3, 4)
	})
	t.Run("logappendtime_uncompressed", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, props(MessageTimestampTypeProp, "LogAppendTime"), 0)
		info := leaderAppend(t, l, msgSet(t, 0, 5, "a", "b"))
		now := e.tm.Milliseconds()
		if info.LogAppendTime != now || info.MaxTimestamp != now || info.OffsetOfMaxTimestamp != 0 {
			t.Fatalf("info %+v", info)
		}
		for _, le := range shallow(t, l) {
			if le.Record.Timestamp() != now || le.Record.TimestampType() != record.LogAppendTime {
				t.Fatalf("message not stamped with the append time: %v", le)
			}
		}
	})
	t.Run("logappendtime_compressed", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, props(MessageTimestampTypeProp, "LogAppendTime"), 0)
		info := leaderAppend(t, l, msgSetCodec(t, record.MagicValueV1, record.LZ4, 0, 5, "a", "b"))
		now := e.tm.Milliseconds()
		if info.MaxTimestamp != now || info.OffsetOfMaxTimestamp != 1 {
			t.Fatalf("info %+v", info)
		}
		for _, m := range readLog(t, l, 0, 4096, nil) {
			if m.ts != now {
				t.Fatalf("inner message timestamp %d, want the wrapper's append time %d", m.ts, now)
			}
		}
	})
	t.Run("createtime_out_of_range", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, props(MessageTimestampDifferenceMaxMsProp, "1000"), 0)
		now := e.tm.Milliseconds()
		for _, ms := range []*record.MemoryRecords{
			msgSet(t, 0, now-1001, "old"),
			msgSetCodec(t, record.MagicValueV1, record.SNAPPY, 0, now+1001, "future"),
		} {
			if _, err := l.Append(ms, true); !errors.Is(err, ErrInvalidTimestamp) {
				t.Fatalf("out-of-range timestamp: %v", err)
			}
		}
		leaderAppend(t, l, msgSet(t, 0, now-1000, "ok"))
	})
	t.Run("createtime_producer_set_logappendtime", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, nil, 0)
		b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.LogAppendTime, 0, 5, 0)
		_, _ = b.AppendWithOffset(0, 5, nil, []byte("x"))
		if _, err := l.Append(b.Build(), true); !errors.Is(err, ErrInvalidTimestamp) {
			t.Fatalf("producer LogAppendTime: %v", err)
		}
	})
	t.Run("convert_up_v0_to_v1", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, nil, 0)
		leaderAppend(t, l, msgSetCodec(t, record.MagicValueV0, record.NONE, 0, -1, "a", "b"))
		leaderAppend(t, l, msgSetCodec(t, record.MagicValueV0, record.GZIP, 7, -1, "c", "d"))
		es := shallow(t, l)
		if len(es) != 3 || es[0].Magic() != 1 || es[1].Magic() != 1 || es[2].Magic() != 1 || es[0].Record.Timestamp() != -1 {
			t.Fatalf("up-conversion: %v", es)
		}
		eqOffsets(t, readLog(t, l, 0, 4096, nil), 0, 1, 2, 3)
	})
	t.Run("convert_down_v1_to_v0", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, props(MessageFormatVersionProp, "0.9.0"), 0)
		leaderAppend(t, l, msgSet(t, 0, record.NoTimestamp, "a", "b"))
		// Compressed input to a magic-0 topic is always re-compressed, with absolute inner offsets.
		leaderAppend(t, l, msgSetCodec(t, record.MagicValueV1, record.GZIP, 0, record.NoTimestamp, "c", "d"))
		es := shallow(t, l)
		for _, le := range es {
			if le.Magic() != 0 {
				t.Fatalf("down-conversion left magic %d", le.Magic())
			}
		}
		eqOffsets(t, readLog(t, l, 0, 4096, nil), 0, 1, 2, 3)
		if _, _, err := l.FetchOffsetsByTimestamp(5); !errors.Is(err, ErrUnsupportedForMessageFormat) {
			t.Fatalf("timestamp search on a v0 topic: %v", err)
		}
		if to, ok, err := l.FetchOffsetsByTimestamp(EarliestTimestamp); err != nil || !ok || to.Offset != 0 {
			t.Fatal("earliest works on v0 topics")
		}
	})
	t.Run("compression_type_recompresses", func(t *testing.T) {
		for _, c := range []struct {
			topic string
			in    record.CompressionType
			want  record.CompressionType
		}{
			{"producer", record.GZIP, record.GZIP}, {"producer", record.NONE, record.NONE},
			{"uncompressed", record.SNAPPY, record.NONE}, {"gzip", record.NONE, record.GZIP},
			{"lz4", record.GZIP, record.LZ4}, {"snappy", record.LZ4, record.SNAPPY},
		} {
			e := newLogEnv(t)
			l := e.open(t, props(CompressionTypeProp, c.topic), 0)
			info := leaderAppend(t, l, msgSetCodec(t, record.MagicValueV1, c.in, 0, e.tm.Milliseconds(), "m1", "m2", "m3"))
			if info.TargetCodec != c.want {
				t.Fatalf("%s/%s: target %s", c.topic, c.in, info.TargetCodec)
			}
			for _, le := range shallow(t, l) {
				if le.Record.CompressionType() != c.want {
					t.Fatalf("%s/%s: stored codec %s, want %s", c.topic, c.in, le.Record.CompressionType(), c.want)
				}
			}
			eqOffsets(t, readLog(t, l, 0, 4096, nil), 0, 1, 2)
			_ = l.Close()
		}
	})
	t.Run("corrupt_wrapper_crc", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, nil, 0)
		v0 := msgSetCodec(t, record.MagicValueV0, record.GZIP, 0, -1, "a")
		raw := append([]byte(nil), v0.Bytes()...)
		raw[len(raw)-1] ^= 0xff // the wrapper's CRC no longer matches
		if _, err := l.Append(record.NewMemoryRecords(raw), true); !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("corrupt wrapper: %v", err)
		}
	})
	t.Run("trailing_partial_bytes_dropped", func(t *testing.T) {
		e := newLogEnv(t)
		l := e.open(t, nil, 0)
		in := msgSet(t, 0, e.tm.Milliseconds(), "a", "b")
		cut := record.NewMemoryRecords(in.Bytes()[:in.SizeInBytes()-3])
		info := leaderAppend(t, l, cut)
		if info.ShallowCount != 1 || l.LogEndOffset() != 1 {
			t.Fatalf("partial trailing message: %+v", info)
		}
		info = leaderAppend(t, l, record.NewMemoryRecords(in.Bytes()[:5]))
		if info.ShallowCount != 0 || info.FirstOffset != -1 || l.LogEndOffset() != 1 {
			t.Fatalf("no whole message: %+v", info)
		}
	})
}

func TestLogConfigParse(t *testing.T) {
	c := DefaultLogConfig()
	if c.SegmentSize != 1073741824 || c.SegmentMs != 604800000 || c.MaxIndexSize != 10485760 || c.IndexInterval != 4096 ||
		c.RetentionMs != 604800000 || c.RetentionSize != -1 || c.MaxMessageSize != 1000012 || !c.Delete || c.Compact ||
		c.CompressionType != "producer" || c.MessageFormatMagic != 1 || c.MessageTimestampType != record.CreateTime ||
		c.FlushInterval != 1<<63-1 || c.MinInSyncReplicas != 1 || !c.UncleanLeaderElectionEnable || c.FileDeleteDelayMs != 60000 {
		t.Fatalf("defaults: %+v", c)
	}
	for _, bad := range []struct{ k, v, msg string }{
		{"segment.bytes", "13", "Invalid value 13 for configuration segment.bytes: Value must be at least 14"},
		{"segment.bytes", "x", "Invalid value x for configuration segment.bytes: Not a number of type INT"},
		{"compression.type", "none", "Invalid value none for configuration compression.type: String must be one of: uncompressed, snappy, lz4, gzip, producer"},
		{"cleanup.policy", "compact,bogus", "Invalid value bogus for configuration cleanup.policy: String must be one of: compact, delete"},
		{"min.cleanable.dirty.ratio", "1.5", "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"},
		{"message.format.version", "0.7", "Invalid value 0.7 for configuration message.format.version: Version `0.7` is not a valid version"},
		{"preallocate", "yes", "Invalid value yes for configuration preallocate: Expected value to be either true or false"},
		{"min.insync.replicas", "0", "Invalid value 0 for configuration min.insync.replicas: Value must be at least 1"},
		{"no.such.key", "1", "Unknown Log configuration no.such.key."},
	} {
		_, err := NewLogConfig(map[string]string{bad.k: bad.v})
		if err == nil || !errors.Is(err, ErrConfig) || len(err.Error()) < len(bad.msg) || err.Error()[:len(bad.msg)] != bad.msg {
			t.Errorf("%s=%s: %v", bad.k, bad.v, err)
		}
	}
	c2, err := FromProps(map[string]string{SegmentBytesProp: "1000"}, map[string]string{CleanupPolicyProp: "compact, delete",
		MessageFormatVersionProp: "0.10.2.1", RetentionMsProp: "-1"})
	must(t, err)
	if c2.SegmentSize != 1000 || !c2.Compact || !c2.Delete || c2.MessageFormatMagic != 1 || c2.RetentionMs != -1 {
		t.Fatalf("merged config %+v", c2)
	}
	for range 100 {
		j := mustConfig(t, props(SegmentJitterMsProp, "50", SegmentMsProp, "20")).RandomSegmentJitter()
		if j < 0 || j >= 20 {
			t.Fatalf("jitter %d outside [0, min(jitter, segment.ms))", j)
		}
	}
}

func TestLogRetention(t *testing.T) {
	t.Run("time_uses_largest_timestamp", func(t *testing.T) {
		e := newLogEnv(t)
		setSize := msgSet(t, 0, 0, "test").SizeInBytes()
		l := e.open(t, props(SegmentBytesProp, strconv.Itoa(5*setSize), RetentionMsProp, "10000"), 0)
		now := e.tm.Milliseconds()
		for i := range 15 { // three segments: old, old, recent
			ts := now - 20000
			if i >= 10 {
				ts = now
			}
			leaderAppend(t, l, msgSet(t, 0, ts, "test"))
		}
		leaderAppend(t, l, msgSet(t, 0, now, "test")) // roll: active segment 15
		n, err := l.DeleteOldSegments()
		if err != nil || n != 2 || l.LogStartOffset() != 10 {
			t.Fatalf("deleted %d, start %d: %v", n, l.LogStartOffset(), err)
		}
	})
	t.Run("size", func(t *testing.T) {
		e := newLogEnv(t)
		setSize := msgSet(t, 0, 0, "test").SizeInBytes()
		l := e.open(t, props(SegmentBytesProp, strconv.Itoa(5*setSize), RetentionBytesProp, strconv.Itoa(12*setSize), RetentionMsProp, "-1"), 0)
		for range 20 {
			leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "test"))
		}
		// 20 messages in 4 segments of 5: 20-12 = 8 bytes-worth over → only one whole segment fits in diff.
		n, err := l.DeleteOldSegments()
		if err != nil || n != 1 || l.LogStartOffset() != 5 || l.Size() != int64(15*setSize) {
			t.Fatalf("deleted %d, start %d, size %d: %v", n, l.LogStartOffset(), l.Size(), err)
		}
	})
}

func TestLogFetchOffsetsByTimestamp(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(4*setSize), IndexIntervalBytesProp, "1"), 0)
	base := e.tm.Milliseconds()
	for i := int64(0); i < 20; i++ {
		leaderAppend(t, l, msgSet(t, 0, base+i*10, "test"))
	}
	for _, c := range []struct {
		ts   int64
		want TimestampOffset
		ok   bool
	}{
		{EarliestTimestamp, TimestampOffset{-1, 0}, true},
		{LatestTimestamp, TimestampOffset{-1, 20}, true},
		{base, TimestampOffset{base, 0}, true},
		{base + 55, TimestampOffset{base + 60, 6}, true},
		{base + 190, TimestampOffset{base + 190, 19}, true},
		{base + 191, TimestampOffset{}, false},
		{0, TimestampOffset{base, 0}, true},
	} {
		got, ok, err := l.FetchOffsetsByTimestamp(c.ts)
		if err != nil || ok != c.ok || (ok && got != c.want) {
			t.Fatalf("fetchOffsetsByTimestamp(%d) = %v %v %v, want %v", c.ts, got, ok, err, c.want)
		}
	}
}

func TestLogGetOffsetsBefore(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	l := e.open(t, props(SegmentBytesProp, strconv.Itoa(4*setSize)), 0)
	for range 10 { // segments 0, 4, 8 (active, non-empty)
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), "test"))
	}
	latest := l.GetOffsetsBefore(LatestTimestamp, 10)
	if len(latest) != 4 || latest[0] != 10 || latest[1] != 8 || latest[3] != 0 {
		t.Fatalf("latest: %v", latest)
	}
	if got := l.GetOffsetsBefore(LatestTimestamp, 1); len(got) != 1 || got[0] != 10 {
		t.Fatalf("latest, max 1: %v", got)
	}
	if got := l.GetOffsetsBefore(EarliestTimestamp, 10); len(got) != 1 || got[0] != 0 {
		t.Fatalf("earliest: %v", got)
	}
	if got := l.GetOffsetsBefore(1, 10); len(got) != 0 {
		t.Fatalf("before every segment: %v", got)
	}
}

func TestLogLoadCompletesSwap(t *testing.T) {
	e := newLogEnv(t)
	setSize := msgSet(t, 0, 0, "test").SizeInBytes()
	p := props(SegmentBytesProp, strconv.Itoa(5*setSize))
	l := e.open(t, p, 0)
	for i := range 12 { // segments 0, 5, 10
		leaderAppend(t, l, msgSet(t, 0, e.tm.Milliseconds(), strconv.Itoa(i)))
	}
	must(t, l.Close())
	// Fake a cleaner that merged segments 0 and 5 into one (keeping only offsets 3 and 9) and
	// crashed after renaming its output to .swap.
	swapBase := LogFilename(e.dir, 0) + SwapFileSuffix
	fr, err := record.OpenFileRecords(swapBase, record.FileRecordsOptions{})
	must(t, err)
	_, err = fr.Append(msgSet(t, 3, e.tm.Milliseconds(), "3"))
	must(t, err)
	_, err = fr.Append(msgSet(t, 9, e.tm.Milliseconds(), "9"))
	must(t, err)
	must(t, fr.Close())
	l2 := e.open(t, p, 0)
	if l2.NumberOfSegments() != 2 || l2.LogSegments()[0].BaseOffset() != 0 || l2.LogSegments()[1].BaseOffset() != 10 {
		t.Fatalf("segments after swap: %v", l2.LogSegments())
	}
	var vals []string
	for _, m := range readLog(t, l2, 0, 4096, nil) {
		vals = append(vals, m.value)
	}
	if len(vals) != 2 || vals[0] != "3" || vals[1] != "9" {
		t.Fatalf("swapped segment content %v", vals)
	}
	for _, n := range listDir(t, e.dir) {
		if n == FilenamePrefixFromOffset(5)+LogFileSuffix || n == FilenamePrefixFromOffset(0)+LogFileSuffix+SwapFileSuffix {
			t.Fatalf("%s left after swap completion", n)
		}
	}
}
