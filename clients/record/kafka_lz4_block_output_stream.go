package record

import (
	"encoding/binary"

	"github.com/pierrec/lz4/v4"
)

// The subset of the LZ4 frame format (v1.5.1) that Kafka 0.10.2 writes and reads.
const (
	lz4FrameMagic           uint32 = 0x184D2204
	lz4FrameIncompressible  uint32 = 0x80000000 // high bit of a block size: stored uncompressed
	lz4FLGVersionMask              = 0xC0
	lz4FLGVersion1                 = 0x40
	lz4FLGBlockIndependence        = 0x20
	lz4FLGBlockChecksum            = 0x10
	lz4FLGContentSize              = 0x08
	lz4FLGContentChecksum          = 0x04
	lz4FLGReserved                 = 0x03
	lz4BDReserved                  = 0x8F // bit 7 and bits 0-3
	lz4BDBlockSizeShift            = 4
	lz4BlockSize64KB               = 4                                        // BD code of the block size Kafka writes
	lz4DefaultFLG           byte   = lz4FLGVersion1 | lz4FLGBlockIndependence // 0x60
	lz4DefaultBD            byte   = lz4BlockSize64KB << lz4BDBlockSizeShift  // 0x40
)

// lz4MaxBlockSize maps a BD block-size code (4..7) to its size: 64 KiB, 256 KiB, 1 MiB, 4 MiB.
func lz4MaxBlockSize(code int) int { return 1 << (2*code + 8) }

// lz4HeaderChecksum is the frame descriptor's HC byte: the second byte of the xxHash32 of the
// descriptor. With broken = true it hashes the 4 magic bytes as well, which is what Kafka before
// KAFKA-3160 did and what 0.10.2 still does for magic 0 messages so that old consumers accept them.
func lz4HeaderChecksum(header []byte, broken bool) byte {
	if broken {
		return byte(xxhash32(header, 0) >> 8)
	}
	return byte(xxhash32(header[4:], 0) >> 8)
}

// appendKafkaLZ4Frame appends src compressed as one LZ4 frame the way Kafka 0.10.2 writes it:
// FLG 0x60 (version 1, independent blocks, no block or content checksum, no content size), BD
// 0x40 (64 KiB blocks), the header checksum (broken for magic 0, see lz4HeaderChecksum), blocks
// that do not shrink stored raw with the high bit of their size set, and the zero end mark.
//
// Why not pierrec/lz4's Writer: its frame header checksum is always the correct one, so it cannot
// produce what magic 0 needs, and patching its output would mean re-parsing it. Building the frame
// here takes a few lines on top of pierrec/lz4's block compressor and reads beside Kafka's class.
//
// Kafka 0.10.2: org.apache.kafka.common.record.KafkaLZ4BlockOutputStream.
func appendKafkaLZ4Frame(dst, src []byte, useBrokenFlagDescriptorChecksum bool) ([]byte, error) {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, lz4FrameMagic)
	dst = append(dst, lz4DefaultFLG, lz4DefaultBD)
	dst = append(dst, lz4HeaderChecksum(dst[start:], useBrokenFlagDescriptorChecksum))

	blockSize := lz4MaxBlockSize(lz4BlockSize64KB)
	var c lz4.Compressor
	for len(src) > 0 {
		block := src[:min(blockSize, len(src))]
		src = src[len(block):]
		bound := lz4.CompressBlockBound(len(block))
		sizeAt := len(dst)
		dst = binary.LittleEndian.AppendUint32(dst, 0)
		dst = growLen(dst, bound)
		n, err := c.CompressBlock(block, dst[sizeAt+4:])
		if err != nil {
			return nil, err
		}
		if n == 0 || n >= len(block) {
			// Incompressible: store the block as it is.
			dst = append(dst[:sizeAt+4], block...)
			binary.LittleEndian.PutUint32(dst[sizeAt:], uint32(len(block))|lz4FrameIncompressible)
			continue
		}
		dst = dst[:sizeAt+4+n]
		binary.LittleEndian.PutUint32(dst[sizeAt:], uint32(n))
	}
	return binary.LittleEndian.AppendUint32(dst, 0), nil // end mark
}

// growLen extends b by n bytes (contents unspecified), reallocating if needed.
func growLen(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}
