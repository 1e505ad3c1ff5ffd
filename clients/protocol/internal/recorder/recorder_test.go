package recorder

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// request builds a size-prefixed request frame with a v1 header and the given body.
func request(key, version int16, corr int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, 1)
	b = append(b, 'c')
	b = append(b, body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

func TestListenerAnswersAPIVersionsAndPassesOtherFrames(t *testing.T) {
	ln, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	ln.MaxPerKey = 1
	passed := make(chan []byte, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		got, err := readFrame(c) // the Metadata frame; the ApiVersions ones never reach here
		if err != nil {
			t.Error(err)
			return
		}
		passed <- got
		_, _ = io.Copy(io.Discard, c)
	}()

	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	_ = client.SetDeadline(time.Now().Add(10 * time.Second))
	v3 := request(18, 3, 7, []byte{0x07, 's', 'a', 'r', 'a', 'm', 'a', 0x01, 0x00})
	if _, err := client.Write(v3); err != nil {
		t.Fatal(err)
	}
	resp, err := readResponse(client)
	if err != nil {
		t.Fatal(err)
	}
	// correlation id 7, then the v0 body with error 35 and an empty array (docs/formats.md §2.3).
	if want := "00000007" + "0023" + "00000000"; hex.EncodeToString(resp) != want {
		t.Fatalf("ApiVersions v3 answer %x, want %s", resp, want)
	}
	if _, err := client.Write(request(18, 0, 8, nil)); err != nil {
		t.Fatal(err)
	}
	resp, err = readResponse(client)
	if err != nil {
		t.Fatal(err)
	}
	// 4 (correlation id) + 132 (docs/formats.md §2.3), ControlledShutdown advertised as 1..1.
	if len(resp) != 136 || !bytes.Equal(resp[4:10], []byte{0, 0, 0, 0, 0, 21}) ||
		!bytes.Equal(resp[10+7*6:10+8*6], []byte{0, 7, 0, 1, 0, 1}) {
		t.Fatalf("ApiVersions v0 answer %x", resp)
	}
	meta := request(3, 0, 9, []byte{0, 0, 0, 0})
	if _, err := client.Write(meta); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-passed:
		if !bytes.Equal(got, meta) {
			t.Fatalf("passed %x, want %x", got, meta)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("metadata frame not passed on")
	}
	client.Close()
	<-done
	ln.Close()

	frames := ln.Frames()
	// MaxPerKey 1 keeps the first ApiVersions only.
	if len(frames) != 2 || frames[0].APIKey != 18 || frames[0].APIVersion != 3 ||
		frames[1].APIKey != 3 || frames[1].Seq != 1 || frames[1].CorrelationID != 9 {
		t.Fatalf("frames %+v", frames)
	}
	if !bytes.Equal(frames[0].Bytes, v3[4:]) {
		t.Fatalf("recorded %x, want %x", frames[0].Bytes, v3[4:])
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "999-00-v0.bin"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, frames); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(names) != 2 || filepath.Base(names[0]) != "000-18-v3.bin" || filepath.Base(names[1]) != "001-03-v0.bin" {
		t.Fatalf("files %v", names)
	}
}

func TestReadFrameRejectsBadSizes(t *testing.T) {
	for _, size := range []int32{-1, 0, 7, maxFrameSize + 1} {
		b := binary.BigEndian.AppendUint32(nil, uint32(size))
		if _, err := readFrame(bytes.NewReader(append(b, make([]byte, 16)...))); err == nil {
			t.Errorf("size %d accepted", size)
		}
	}
}

func readResponse(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(size[:]))
	_, err := io.ReadFull(r, b)
	return b, err
}
