package record

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// openTestFile appends sets to a fresh FileRecords and returns it with the concatenated bytes.
func openTestFile(t *testing.T, sets ...*MemoryRecords) (*FileRecords, []byte) {
	t.Helper()
	fr, err := OpenFileRecords(filepath.Join(t.TempDir(), "00000000000000000000.log"), FileRecordsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fr.Close() })
	var all []byte
	for _, s := range sets {
		n, err := fr.Append(s)
		if err != nil || n != s.SizeInBytes() {
			t.Fatalf("append: %d, %v", n, err)
		}
		all = append(all, s.Bytes()...)
	}
	return fr, all
}

func readAll(t *testing.T, fr *FileRecords) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := fr.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFileRecordsAppendReadSlice(t *testing.T) {
	s1 := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(5, 0))
	s2 := buildSet(t, 1, GZIP, CreateTime, 5, 0, sampleKVs(5, 5))
	fr, all := openTestFile(t, s1, s2)
	if fr.SizeInBytes() != len(all) || !bytes.Equal(readAll(t, fr), all) {
		t.Fatal("file content differs")
	}
	var offsets []int64
	for e, err := range fr.DeepEntries() {
		if err != nil {
			t.Fatal(err)
		}
		offsets = append(offsets, e.Offset)
	}
	if len(offsets) != 10 || offsets[9] != 9 {
		t.Fatalf("deep offsets %v", offsets)
	}
	// Shallow entries carry file positions and load the same bytes as memory.
	memShallow := collect(t, NewMemoryRecords(all).ShallowEntries())
	i := 0
	for fe, err := range fr.ShallowEntries() {
		if err != nil {
			t.Fatal(err)
		}
		e, err := fe.LogEntry()
		if err != nil || e.Offset != memShallow[i].Offset || fe.Position != memShallow[i].Position ||
			!bytes.Equal(e.Record.Buffer(), memShallow[i].Record.Buffer()) || fe.SizeInBytes() != memShallow[i].Size() {
			t.Fatalf("entry %d: %v %v", i, e, err)
		}
		i++
	}
	if i != 6 {
		t.Fatalf("%d shallow entries", i)
	}
	// A slice is a view: position/size within the file, nested slices relative to the outer one.
	pos := memShallow[2].Position
	slice, err := fr.Read(pos, 1000000)
	if err != nil || slice.SizeInBytes() != len(all)-pos || !bytes.Equal(readAll(t, slice), all[pos:]) {
		t.Fatalf("slice: %v", err)
	}
	inner, _ := slice.Read(memShallow[2].Size(), memShallow[3].Size()+5) // cuts mid-entry
	if !bytes.Equal(readAll(t, inner), all[memShallow[3].Position:memShallow[3].Position+memShallow[3].Size()+5]) {
		t.Fatal("nested slice bytes")
	}
	n := 0
	for _, err := range inner.ShallowEntries() { // stops cleanly at the partial entry
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Fatalf("nested slice has %d whole entries", n)
	}
	if past, _ := fr.Read(len(all)+10, 5); past.SizeInBytes() != 0 {
		t.Fatal("slice past the end must be empty")
	}
	if _, err := fr.Read(-1, 1); !errors.Is(err, ErrIllegalArgument) {
		t.Fatal("negative position")
	}
	// Appending after the slice was taken does not grow the slice.
	fr.Append(s1)
	if slice.SizeInBytes() != len(all)-pos || fr.SizeInBytes() != len(all)+s1.SizeInBytes() {
		t.Fatal("slice grew")
	}
	if _, err := slice.Append(s1); err == nil {
		t.Fatal("append to a slice")
	}
	buf := make([]byte, 12)
	if n, err := fr.ReadInto(buf, pos); err != nil || n != 12 || !bytes.Equal(buf, all[pos:pos+12]) {
		t.Fatal("ReadInto")
	}
}

func TestFileRecordsSearch(t *testing.T) {
	// Offsets 0-4 uncompressed (timestamps 10..14), then a wrapper with 5-9 (timestamps 20..24).
	var kv1, kv2 []kv
	for i := 0; i < 5; i++ {
		kv1 = append(kv1, kv{offset: int64(i), timestamp: int64(10 + i), value: []byte{byte(i)}})
		kv2 = append(kv2, kv{offset: int64(5 + i), timestamp: int64(20 + i), value: []byte{byte(i)}})
	}
	s1 := buildSet(t, 1, NONE, CreateTime, 0, 0, kv1)
	s2 := buildSet(t, 1, LZ4, CreateTime, 5, 0, kv2)
	fr, _ := openTestFile(t, s1, s2)
	entries := collect(t, s1.ShallowEntries())
	p, err := fr.SearchForOffsetWithSize(3, 0)
	if err != nil || p == nil || *p != (LogEntryPosition{Offset: 3, Position: entries[3].Position, Size: entries[3].Size()}) {
		t.Fatalf("search 3: %+v %v", p, err)
	}
	// Offset 7 is inside the wrapper, whose shallow offset is 9.
	p, _ = fr.SearchForOffsetWithSize(7, entries[3].Position)
	if p == nil || p.Offset != 9 || p.Position != s1.SizeInBytes() || p.Size != s2.SizeInBytes() {
		t.Fatalf("search 7: %+v", p)
	}
	if p, _ := fr.SearchForOffsetWithSize(10, 0); p != nil {
		t.Fatalf("search past the end: %+v", p)
	}
	to, err := fr.SearchForTimestamp(12, 0)
	if err != nil || to == nil || *to != (TimestampAndOffset{Timestamp: 12, Offset: 2}) {
		t.Fatalf("ts 12: %+v %v", to, err)
	}
	to, _ = fr.SearchForTimestamp(22, 0)
	if to == nil || *to != (TimestampAndOffset{Timestamp: 22, Offset: 7}) {
		t.Fatalf("ts 22: %+v", to)
	}
	if to, _ := fr.SearchForTimestamp(25, 0); to != nil {
		t.Fatalf("ts 25: %+v", to)
	}
	if lt, _ := fr.LargestTimestampAfter(0); lt != (TimestampAndOffset{Timestamp: 24, Offset: 9}) {
		t.Fatalf("largest: %+v", lt)
	}
}

func TestFileRecordsTruncateRenameDelete(t *testing.T) {
	s1 := buildSet(t, 0, NONE, CreateTime, 0, 0, sampleKVs(4, 0))
	fr, all := openTestFile(t, s1)
	e := collect(t, s1.ShallowEntries())
	if n, err := fr.TruncateTo(e[2].Position); err != nil || n != len(all)-e[2].Position || fr.SizeInBytes() != e[2].Position {
		t.Fatalf("truncate: %d %v", n, err)
	}
	if fi, _ := os.Stat(fr.File()); fi.Size() != int64(e[2].Position) {
		t.Fatal("file not truncated")
	}
	if _, err := fr.TruncateTo(fr.SizeInBytes() + 1); !errors.Is(err, ErrIllegalArgument) {
		t.Fatal("truncate beyond size")
	}
	if n := len(collect(t, fr.DeepEntries())); n != 2 {
		t.Fatalf("%d entries after truncation", n)
	}
	newPath := fr.File() + ".deleted"
	old := fr.File()
	if err := fr.RenameTo(newPath); err != nil || fr.File() != newPath {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("old name still there")
	}
	fr.Append(s1) // the open file keeps working after the rename
	if n := len(collect(t, fr.DeepEntries())); n != 6 {
		t.Fatalf("%d entries after rename+append", n)
	}
	if err := fr.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(newPath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("not deleted")
	}
}

func TestFileRecordsPreallocateTrimAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg.log")
	fr, err := OpenFileRecords(path, FileRecordsOptions{Preallocate: true, InitFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if fr.SizeInBytes() != 0 {
		t.Fatalf("preallocated size %d", fr.SizeInBytes())
	}
	if fi, _ := os.Stat(path); fi.Size() != 1<<20 {
		t.Fatal("not preallocated")
	}
	s := buildSet(t, 1, SNAPPY, CreateTime, 0, 0, sampleKVs(7, 0))
	fr.Append(s)
	if n := len(collect(t, fr.DeepEntries())); n != 7 {
		t.Fatalf("%d entries", n)
	}
	if got := readAll(t, fr); !bytes.Equal(got, s.Bytes()) {
		t.Fatalf("WriteTo of a preallocated file: %d bytes", len(got))
	}
	if err := fr.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() != int64(s.SizeInBytes()) {
		t.Fatalf("not trimmed on close: %d", fi.Size())
	}
	ro, err := OpenFileRecords(path, FileRecordsOptions{ReadOnly: true, FileAlreadyExists: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.SizeInBytes() != s.SizeInBytes() || len(collect(t, ro.DeepEntries())) != 7 {
		t.Fatal("reopen")
	}
	if _, err := ro.Append(s); err == nil {
		t.Fatal("append to a read-only file")
	}
}

func TestFileRecordsCorruptTail(t *testing.T) {
	s := buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(3, 0))
	fr, all := openTestFile(t, s)
	// A zero tail, as a crash after preallocation leaves: size 0 < 14 -> corrupt at that position.
	fr.Append(NewMemoryRecords(make([]byte, 40)))
	var lastErr error
	n := 0
	for _, err := range fr.ShallowEntries() {
		if err != nil {
			lastErr = err
			break
		}
		n++
	}
	if n != 3 || !errors.Is(lastErr, ErrCorruptRecord) {
		t.Fatalf("%d entries, %v", n, lastErr)
	}
	for _, err := range fr.ShallowEntriesWithMaxSize(10) {
		if !errors.Is(err, ErrCorruptRecord) {
			t.Fatalf("max size: %v", err)
		}
		break
	}
	_ = all
}

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

func TestFileRecordsSendfileToTCP(t *testing.T) {
	// ~4 MiB so the socket buffer fills and sendfile hits EAGAIN.
	var sets []*MemoryRecords
	for i := 0; i < 8; i++ {
		sets = append(sets, buildSet(t, 1, NONE, CreateTime, int64(i*1000), 0, bigKVs(1000, int64(i*1000), 500)))
	}
	fr, all := openTestFile(t, sets...)
	if len(all) < 4<<20 {
		t.Fatalf("only %d bytes", len(all))
	}
	// Two concurrent WriteTo of the same file from different offsets, each to its own socket.
	starts := []int{0, len(all) / 3}
	var wg sync.WaitGroup
	got := make([][]byte, len(starts))
	errs := make([]error, 2*len(starts))
	for i, start := range starts {
		client, server := tcpPair(t)
		slice, _ := fr.Read(start, len(all))
		wg.Add(2)
		go func() {
			defer wg.Done()
			n, err := slice.WriteTo(server)
			if err == nil && n != int64(len(all)-start) {
				err = io.ErrShortWrite
			}
			errs[2*i] = err
			server.CloseWrite()
		}()
		go func() {
			defer wg.Done()
			got[i], errs[2*i+1] = io.ReadAll(client)
		}()
	}
	wg.Wait()
	for i, start := range starts {
		if errs[2*i] != nil || errs[2*i+1] != nil {
			t.Fatalf("stream %d: %v / %v", i, errs[2*i], errs[2*i+1])
		}
		if !bytes.Equal(got[i], all[start:]) {
			t.Fatalf("stream %d from %d: %d bytes differ from the file", i, start, len(got[i]))
		}
	}
	// The file's shared position was never used: a plain Read from the fd still starts at 0.
	head := make([]byte, 8)
	if _, err := fr.Channel().Read(head); err != nil || !bytes.Equal(head, all[:8]) {
		t.Fatalf("file position moved: % x", head)
	}
	// A partial write resumes from an offset within the slice; on Linux it must go by sendfile.
	client, server := tcpPair(t)
	done := make(chan bool, 1)
	go func() {
		_, handled, _ := sendfileTo(server, fr.Channel(), 1000, 5000)
		done <- handled
		server.CloseWrite()
	}()
	part, _ := io.ReadAll(client)
	if !bytes.Equal(part, all[1000:6000]) {
		t.Fatalf("sendfile from 1000: %d bytes", len(part))
	}
	if handled := <-done; runtime.GOOS == "linux" && !handled {
		t.Fatal("sendfile was not used for a TCP connection")
	}
	client2, server2 := tcpPair(t)
	go func() {
		fr.WriteToAt(server2, 1000, 5000)
		server2.CloseWrite()
	}()
	part, _ = io.ReadAll(client2)
	if !bytes.Equal(part, all[1000:6000]) {
		t.Fatalf("WriteToAt: %d bytes", len(part))
	}
}

func TestFileRecordsWriteToDetectsTruncation(t *testing.T) {
	fr, all := openTestFile(t, buildSet(t, 1, NONE, CreateTime, 0, 0, sampleKVs(3, 0)))
	slice, _ := fr.Read(0, len(all))
	fr.TruncateTo(10)
	if _, err := slice.WriteTo(io.Discard); err == nil {
		t.Fatal("write of a truncated slice succeeded")
	}
}

func bigKVs(n int, base int64, valueSize int) []kv {
	out := make([]kv, n)
	for i := range out {
		v := bytes.Repeat([]byte{byte(i)}, valueSize)
		out[i] = kv{offset: base + int64(i), timestamp: int64(i), key: []byte("k"), value: v}
	}
	return out
}

// A search that crosses several read windows (8 KiB first, doubling to 64 KiB) finds every
// entry, including one larger than a whole window, and a torn entry at the end is not found.
func TestFileRecordsSearchAcrossWindows(t *testing.T) {
	var kvs []kv
	for i := 0; i < 3000; i++ {
		kvs = append(kvs, kv{offset: int64(i), timestamp: 1, value: bytes.Repeat([]byte{'v'}, 90)})
	}
	small := buildSet(t, 1, NONE, CreateTime, 0, 0, kvs)
	big := buildSet(t, 1, NONE, CreateTime, 3000, 0, []kv{{offset: 3000, timestamp: 1, value: bytes.Repeat([]byte{'b'}, 100<<10)}})
	last := buildSet(t, 1, NONE, CreateTime, 3001, 0, []kv{{offset: 3001, timestamp: 1, value: []byte("z")}})
	fr, _ := openTestFile(t, small, big, last)
	entries := collect(t, small.ShallowEntries())
	for _, o := range []int{0, 1, 90, 91, 700, 1500, 2999} {
		p, err := fr.SearchForOffsetWithSize(int64(o), 0)
		if err != nil || p == nil || *p != (LogEntryPosition{Offset: int64(o), Position: entries[o].Position, Size: entries[o].Size()}) {
			t.Fatalf("search %d: %+v %v", o, p, err)
		}
	}
	p, err := fr.SearchForOffsetWithSize(3001, entries[2000].Position)
	if err != nil || p == nil || p.Position != small.SizeInBytes()+big.SizeInBytes() {
		t.Fatalf("search past the 100 KiB entry: %+v %v", p, err)
	}
	// Cut the file inside the last entry: the search stops at the torn entry.
	torn, err := fr.Read(0, small.SizeInBytes()+big.SizeInBytes()+5)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := torn.SearchForOffsetWithSize(3001, 0); err != nil || p != nil {
		t.Fatalf("search into a torn entry: %+v %v", p, err)
	}
}
