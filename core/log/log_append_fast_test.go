package log

// The leader append path's byte-level walks (MemoryRecords.ScanShallow in analyzeAndValidateRecords,
// assignOffsetsNonCompressedChecked in LogValidator) against the iterator versions they replace,
// on random valid and damaged sets: same LogAppendInfo, same errors, same bytes written.

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

// randomAppendSet concatenates a few sets (magic 0 or 1, mostly uncompressed, sometimes with
// LogAppendTime already set, null keys and values) and sometimes damages them: a flipped byte, a
// size or offset field overwritten, a truncation.
func randomAppendSet(t testing.TB, rng *rand.Rand, now int64) []byte {
	var buf []byte
	offset := int64(rng.IntN(100))
	for range 1 + rng.IntN(3) {
		magic := record.MagicValueV1
		if rng.IntN(5) == 0 {
			magic = record.MagicValueV0
		}
		codec := record.NONE
		if rng.IntN(10) == 0 {
			codec = record.GZIP
		}
		tsType := record.CreateTime
		if rng.IntN(10) == 0 {
			tsType = record.LogAppendTime
		}
		b := record.NewMemoryRecordsBuilder(magic, codec, tsType, offset, now-5, 0)
		for range 1 + rng.IntN(8) {
			var key []byte
			if rng.IntN(5) != 0 {
				key = []byte{byte(rng.IntN(256))}
			}
			value := make([]byte, rng.IntN(30))
			ts := now + int64(rng.IntN(4001)) - 2000
			if _, err := b.AppendWithOffset(offset, ts, key, value); err != nil {
				t.Fatal(err)
			}
			offset++
		}
		buf = append(buf, b.Build().Bytes()...)
	}
	switch rng.IntN(8) {
	case 0:
		buf[rng.IntN(len(buf))] ^= byte(1 + rng.IntN(255))
	case 1:
		binary.BigEndian.PutUint32(buf[record.SizeOffset:], uint32(rng.IntN(100)-10))
	case 2:
		binary.BigEndian.PutUint64(buf[record.OffsetOffset:], uint64(rng.IntN(1000)))
	case 3:
		buf = buf[:rng.IntN(len(buf)+1)]
	}
	return buf
}

func TestAnalyzeAndValidateRecordsFastMatchesIterator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	now := int64(1487000000000)
	c := DefaultLogConfig()
	l := &Log{}
	ok, failed := 0, 0
	for i := range 4000 {
		buf := randomAppendSet(t, rng, now)
		cfg := *c
		cfg.MaxMessageSize = []int{c.MaxMessageSize, 40, 70}[rng.IntN(3)]
		cfg.CompressionType = []string{"producer", "uncompressed", "lz4"}[rng.IntN(3)]
		got, gotErr := l.analyzeAndValidateRecords(record.NewMemoryRecords(buf), &cfg)
		want, wantErr := analyzeAndValidateRecordsSlow(record.NewMemoryRecords(buf), &cfg)
		if got != want || errString(gotErr) != errString(wantErr) {
			t.Fatalf("set %d (%x): fast %+v, %v; iterator %+v, %v", i, buf, got, gotErr, want, wantErr)
		}
		if gotErr == nil {
			ok++
		} else {
			failed++
		}
	}
	if ok < 1000 || failed < 300 {
		t.Fatalf("%d accepted, %d refused: the generator does not cover both outcomes", ok, failed)
	}
}

func TestAssignOffsetsNonCompressedCheckedMatchesIterator(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	now := int64(1487000000000)
	c := DefaultLogConfig()
	l := &Log{}
	ran, errs := 0, 0
	for i := 0; ran < 3000; i++ {
		buf := randomAppendSet(t, rng, now)
		info, err := l.analyzeAndValidateRecords(record.NewMemoryRecords(buf), c)
		if err != nil || info.ShallowCount == 0 {
			continue // only sets Log.Append would hand to the validator
		}
		buf = buf[:info.ValidBytes]
		ran++
		compacted := rng.IntN(3) == 0
		tsType := []record.TimestampType{record.CreateTime, record.LogAppendTime}[rng.IntN(2)]
		diffMax := []int64{math.MaxInt64, 1500, 0}[rng.IntN(3)]
		magic := record.MagicValueV1
		if rng.IntN(6) == 0 {
			magic = record.MagicValueV0
		}
		start := int64(rng.IntN(1 << 20))

		fastBuf, slowBuf := bytes.Clone(buf), bytes.Clone(buf)
		fastCounter, slowCounter := start, start
		fast, fastErr := LogValidator{knownShallowMagics: info.shallowMagics, shallowChecked: true}.ValidateMessagesAndAssignOffsets(
			record.NewMemoryRecords(fastBuf), &fastCounter, now, info.SourceCodec, record.NONE, compacted, magic, tsType, diffMax)
		slow, slowErr := LogValidator{}.ValidateMessagesAndAssignOffsets(
			record.NewMemoryRecords(slowBuf), &slowCounter, now, info.SourceCodec, record.NONE, compacted, magic, tsType, diffMax)
		if errString(fastErr) != errString(slowErr) || fastCounter != slowCounter || !bytes.Equal(fastBuf, slowBuf) {
			t.Fatalf("set %d (%x) compacted=%v %v diff=%d magic=%d:\nfast err %v counter %d bytes %x\nslow err %v counter %d bytes %x",
				i, buf, compacted, tsType, diffMax, magic, fastErr, fastCounter, fastBuf, slowErr, slowCounter, slowBuf)
		}
		if fastErr != nil {
			errs++
			continue
		}
		if fast.MaxTimestamp != slow.MaxTimestamp || fast.ShallowOffsetOfMaxTimestamp != slow.ShallowOffsetOfMaxTimestamp ||
			fast.MessageSizeMaybeChanged != slow.MessageSizeMaybeChanged ||
			!bytes.Equal(fast.ValidatedRecords.Bytes(), slow.ValidatedRecords.Bytes()) {
			t.Fatalf("set %d (%x): fast %+v, slow %+v", i, buf, fast, slow)
		}
	}
	if errs < 300 || errs > 2700 {
		t.Fatalf("%d of %d validations failed: the generator does not cover both outcomes", errs, ran)
	}
}

// The in-place path must refuse, not panic on, bytes nobody checked; a trailing partial entry ends
// the set as it ends the iterator.
func TestAssignOffsetsNonCompressedCheckedRefusesUncheckedBytes(t *testing.T) {
	good := msgSet(t, 0, 1487000000000, "a", "b").Bytes()
	partial := append(bytes.Clone(good), good[:record.LogOverhead+3]...)
	counter := int64(10)
	res, err := assignOffsetsNonCompressedChecked(record.NewMemoryRecords(partial), &counter, 0, false, record.CreateTime, math.MaxInt64)
	if err != nil || counter != 12 || res.ShallowOffsetOfMaxTimestamp != 10 {
		t.Fatalf("partial tail: %+v, %v, counter %d", res, err, counter)
	}
	for _, buf := range [][]byte{
		func() []byte { b := bytes.Clone(good); binary.BigEndian.PutUint32(b[record.SizeOffset:], 3); return b }(),
		func() []byte { // a v1 message too short for its timestamp
			b := bytes.Clone(good[:record.LogOverhead+record.RecordOverheadV0])
			binary.BigEndian.PutUint32(b[record.SizeOffset:], record.RecordOverheadV0)
			return b
		}(),
	} {
		counter := int64(0)
		_, err := assignOffsetsNonCompressedChecked(record.NewMemoryRecords(buf), &counter, 0, false, record.CreateTime, math.MaxInt64)
		if err == nil {
			t.Fatalf("%x: accepted", buf)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// BenchmarkLogAppendValidation is the CPU part of BenchmarkLogAppend without the file: the shallow
// scan and the in-place offset assignment of one 16 KiB batch of 100-byte messages.
func BenchmarkLogAppendValidation(b *testing.B) {
	batch := benchBatch(b)
	c := DefaultLogConfig()
	l := &Log{}
	now := int64(1487000000000) // message.timestamp.difference.max.ms is unbounded by default
	b.SetBytes(int64(batch.SizeInBytes()))
	b.ReportAllocs()
	next := int64(0)
	for b.Loop() {
		info, err := l.analyzeAndValidateRecords(batch, c)
		if err != nil {
			b.Fatal(err)
		}
		v := LogValidator{knownShallowMagics: info.shallowMagics, shallowChecked: true}
		if _, err := v.ValidateMessagesAndAssignOffsets(batch, &next, now, info.SourceCodec, info.TargetCodec,
			c.Compact, c.MessageFormatMagic, c.MessageTimestampType, c.MessageTimestampDifferenceMaxMs); err != nil {
			b.Fatal(err)
		}
	}
}
