package main

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"testing"
)

// message is one v0 message (offset, size, crc, magic 0, attributes 0, null key, value).
func message(value string) []byte {
	body := []byte{0, 0, 0xff, 0xff, 0xff, 0xff}
	body = binary.BigEndian.AppendUint32(body, uint32(len(value)))
	body = append(body, value...)
	m := make([]byte, 12, 16+len(body))
	binary.BigEndian.PutUint32(m[8:], uint32(4+len(body)))
	m = binary.BigEndian.AppendUint32(m, crc32.ChecksumIEEE(body))
	return append(m, body...)
}

func TestRawBrokerAppendChecksCRCAndAssignsOffsets(t *testing.T) {
	b := &rawBroker{dir: t.TempDir(), logs: map[string]*rawLog{}}
	set := append(message("a"), message("bc")...)
	base, err := b.append("t", set)
	if err != nil || base != 0 {
		t.Fatalf("append = %d, %v", base, err)
	}
	second := message("d")
	if base, err := b.append("t", second); err != nil || base != 2 {
		t.Fatalf("second append = %d, %v", base, err)
	}
	if got := binary.BigEndian.Uint64(second); got != 2 {
		t.Fatalf("offset written in place = %d, want 2", got)
	}
	l := b.logs["t"]
	data, err := os.ReadFile(l.file.Name())
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != l.size || len(l.positions) != 3 || l.positions[2] != int64(len(set)) {
		t.Fatalf("file %d bytes, size %d, positions %v", len(data), l.size, l.positions)
	}
	bad := message("e")
	bad[len(bad)-1] ^= 1
	if _, err := b.append("t", append(message("ok"), bad...)); !errors.Is(err, errCorrupt) {
		t.Fatalf("corrupt message: err = %v", err)
	}
	if len(l.positions) != 3 {
		t.Fatalf("a rejected set was indexed: %v", l.positions)
	}
}
