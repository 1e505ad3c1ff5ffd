package record

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pierrec/lz4/v4"
)

var (
	errLZ4PrematureEOS      = errors.New("lz4: stream ended prematurely")
	errLZ4NotSupported      = errors.New("lz4: stream unsupported (invalid magic bytes)")
	errLZ4DescriptorHash    = errors.New("lz4: stream frame descriptor corrupted")
	errLZ4BlockHashMismatch = errors.New("lz4: block checksum mismatch")
)

// decodeKafkaLZ4Frame decompresses one LZ4 frame as Kafka 0.10.2 reads it and appends the result
// to dst. It accepts what Kafka accepts: version 01, independent blocks only, reserved bits zero,
// block size codes 4-7, an optional content size (skipped), optional block checksums (verified)
// and an optional content checksum (read, not verified). With ignoreFlagDescriptorChecksum (magic 0,
// KAFKA-3160) the header checksum byte is skipped unchecked; otherwise a mismatch is an error.
// Bytes after the end mark are ignored, as Kafka's stream stops reading there.
//
// Kafka 0.10.2: org.apache.kafka.common.record.KafkaLZ4BlockInputStream.
func decodeKafkaLZ4Frame(dst, src []byte, ignoreFlagDescriptorChecksum bool) ([]byte, error) {
	if len(src) < 6 {
		return nil, errLZ4PrematureEOS
	}
	if binary.LittleEndian.Uint32(src) != lz4FrameMagic {
		return nil, errLZ4NotSupported
	}
	flg, bd := src[4], src[5]
	if flg&lz4FLGReserved != 0 || flg&lz4FLGVersionMask != lz4FLGVersion1 {
		return nil, fmt.Errorf("lz4: unsupported FLG byte 0x%02x", flg)
	}
	if flg&lz4FLGBlockIndependence == 0 {
		return nil, errors.New("lz4: dependent block stream is unsupported")
	}
	code := int(bd>>lz4BDBlockSizeShift) & 0x7
	if bd&lz4BDReserved != 0 || code < 4 {
		return nil, fmt.Errorf("lz4: unsupported BD byte 0x%02x", bd)
	}
	maxBlockSize := lz4MaxBlockSize(code)
	pos := 6
	if flg&lz4FLGContentSize != 0 {
		if len(src)-pos < 8 {
			return nil, errLZ4PrematureEOS
		}
		pos += 8
	}
	if len(src)-pos < 1 {
		return nil, errLZ4PrematureEOS
	}
	if !ignoreFlagDescriptorChecksum && src[pos] != lz4HeaderChecksum(src[:pos], false) {
		return nil, errLZ4DescriptorHash
	}
	pos++
	dst = growCap(dst, lz4DecodedSizeHint(src[pos:], maxBlockSize))

	for {
		if len(src)-pos < 4 {
			return nil, errLZ4PrematureEOS
		}
		raw := binary.LittleEndian.Uint32(src[pos:])
		pos += 4
		compressed := raw&lz4FrameIncompressible == 0
		size := int(raw &^ lz4FrameIncompressible)
		if size == 0 { // end mark
			if flg&lz4FLGContentChecksum != 0 {
				if len(src)-pos < 4 {
					return nil, errLZ4PrematureEOS
				}
			}
			return dst, nil
		}
		if size > maxBlockSize {
			return nil, fmt.Errorf("lz4: block size %d exceeded max: %d", size, maxBlockSize)
		}
		if len(src)-pos < size {
			return nil, errLZ4PrematureEOS
		}
		block := src[pos : pos+size]
		pos += size
		if flg&lz4FLGBlockChecksum != 0 {
			if len(src)-pos < 4 {
				return nil, errLZ4PrematureEOS
			}
			if binary.LittleEndian.Uint32(src[pos:]) != xxhash32(block, 0) {
				return nil, errLZ4BlockHashMismatch
			}
			pos += 4
		}
		if !compressed {
			dst = append(dst, block...)
			continue
		}
		at := len(dst)
		dst = growLen(dst, maxBlockSize)
		n, err := lz4.UncompressBlock(block, dst[at:])
		if err != nil {
			return nil, fmt.Errorf("lz4: %w", err)
		}
		dst = dst[:at+n]
	}
}

// lz4DecodedSizeHint estimates the decoded size of the blocks in b from their headers alone (every
// block but the last is full when Kafka wrote the frame), capped so that a forged frame of many
// tiny blocks cannot make it allocate much more than its own size.
func lz4DecodedSizeHint(b []byte, maxBlockSize int) int {
	blocks := 0
	for pos := 0; len(b)-pos >= 4; {
		size := int(binary.LittleEndian.Uint32(b[pos:]) &^ lz4FrameIncompressible)
		if size == 0 {
			break
		}
		blocks++
		pos += 4 + size
	}
	return min(blocks*maxBlockSize, 16*len(b)+1024)
}

// growCap makes room for n more bytes without changing len(b).
func growCap(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}
