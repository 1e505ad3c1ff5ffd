package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
)

// The xerial snappy-java stream framing (SnappyOutputStream / SnappyInputStream): a 16-byte
// header, then blocks of INT32 BE length + one raw snappy block.
var xerialHeader = [16]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}

const (
	xerialMagicLength = 8
	// xerialBlockSize is the uncompressed size of each block this package writes: snappy-java's
	// default. Kafka 0.10.2's producer asks for 1 KiB blocks, which compress worse; every xerial
	// reader accepts any block size, so the larger one is used (the bytes differ from Java's anyway:
	// snappy encoders are not byte-identical).
	xerialBlockSize = 32 * 1024
	// snappyMaxExpansion bounds the decoded length a raw snappy block may claim per input byte.
	// Snappy's densest op (a 2-byte-offset copy) yields 64 bytes from 3, so no valid block
	// expands more than ~22x; the bound keeps a forged length from making a huge allocation.
	snappyMaxExpansion = 32
)

// appendCompressed appends src compressed with codec for a wrapper of the given magic.
//
// Kafka 0.10.2: MemoryRecordsBuilder.wrapForOutput.
func appendCompressed(dst []byte, codec CompressionType, magic int8, src []byte) ([]byte, error) {
	switch codec {
	case NONE:
		return append(dst, src...), nil
	case GZIP:
		buf := bytes.NewBuffer(dst)
		zw := gzip.NewWriter(buf)
		if _, err := zw.Write(src); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case SNAPPY:
		return appendXerialSnappy(dst, src), nil
	case LZ4:
		return appendKafkaLZ4Frame(dst, src, magic == MagicValueV0)
	}
	return nil, fmt.Errorf("%w: unknown compression type: %d", ErrIllegalArgument, codec)
}

// decompress returns the decompressed payload of a wrapper of the given magic.
//
// Kafka 0.10.2: MemoryRecordsBuilder.wrapForInput.
func decompress(codec CompressionType, magic int8, payload []byte) ([]byte, error) {
	switch codec {
	case NONE:
		return payload, nil
	case GZIP:
		return gunzip(payload)
	case SNAPPY:
		return decodeXerialSnappy(payload)
	case LZ4:
		return decodeKafkaLZ4Frame(nil, payload, magic == MagicValueV0)
	}
	return nil, fmt.Errorf("%w: unknown compression type: %d", ErrIllegalArgument, codec)
}

// gunzip reads gzip members like java.util.zip.GZIPInputStream: concatenated members are read in
// turn, and bytes after a member that do not start another valid member are ignored (Java treats
// them as the end of the stream). A truncated or corrupt member is an error.
func gunzip(payload []byte) ([]byte, error) {
	br := bytes.NewReader(payload)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(make([]byte, 0, 4*len(payload)))
	for {
		zr.Multistream(false)
		if _, err := io.Copy(out, zr); err != nil {
			return nil, err
		}
		if br.Len() == 0 {
			break
		}
		if err := zr.Reset(br); err != nil {
			// Trailing bytes that are not a gzip member: ignored, as Java does.
			break
		}
	}
	return out.Bytes(), nil
}

// appendXerialSnappy appends src in snappy-java's stream framing.
//
// Kafka 0.10.2: org.xerial.snappy.SnappyOutputStream, as wrapped by wrapForOutput.
func appendXerialSnappy(dst, src []byte) []byte {
	dst = append(dst, xerialHeader[:]...)
	for len(src) > 0 {
		block := src[:min(xerialBlockSize, len(src))]
		src = src[len(block):]
		sizeAt := len(dst)
		dst = binary.BigEndian.AppendUint32(dst, 0)
		dst = growLen(dst, snappy.MaxEncodedLen(len(block)))
		enc := snappy.Encode(dst[sizeAt+4:], block)
		dst = dst[:sizeAt+4+len(enc)]
		binary.BigEndian.PutUint32(dst[sizeAt:], uint32(len(enc)))
	}
	return dst
}

// decodeXerialSnappy decodes snappy-java's stream framing, or, when the payload does not start
// with its magic (or is shorter than the header), the whole payload as one raw snappy block: the
// fallback of snappy-java's SnappyInputStream, which lets a broker accept clients that sent
// unframed snappy.
func decodeXerialSnappy(payload []byte) ([]byte, error) {
	if len(payload) < len(xerialHeader) || !bytes.Equal(payload[:xerialMagicLength], xerialHeader[:xerialMagicLength]) {
		return decodeRawSnappy(nil, payload)
	}
	// First pass: split the blocks and add up their decoded sizes, so the output is allocated once.
	var blocks [][]byte
	total := 0
	for pos := len(xerialHeader); pos < len(payload); {
		if len(payload)-pos < 4 {
			return nil, errors.New("snappy: truncated xerial block length")
		}
		n := int(binary.BigEndian.Uint32(payload[pos:]))
		pos += 4
		if n < 0 || n > len(payload)-pos {
			return nil, fmt.Errorf("snappy: xerial block of %d bytes runs past the payload", n)
		}
		block := payload[pos : pos+n]
		pos += n
		if d, err := snappy.DecodedLen(block); err == nil && d <= snappyMaxExpansion*len(block)+64 {
			total += d
		}
		blocks = append(blocks, block)
	}
	out := make([]byte, 0, total)
	for _, block := range blocks {
		var err error
		if out, err = decodeRawSnappy(out, block); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeRawSnappy appends one decoded raw snappy block to dst.
func decodeRawSnappy(dst, block []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if n > snappyMaxExpansion*len(block)+64 {
		return nil, fmt.Errorf("snappy: block of %d bytes claims %d decoded bytes", len(block), n)
	}
	at := len(dst)
	dst = growLen(dst, n)
	dec, err := snappy.DecodeStrict(dst[at:], block)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if len(dec) != n || (n > 0 && &dec[0] != &dst[at]) {
		return nil, errors.New("snappy: decoded length mismatch")
	}
	return dst, nil
}
