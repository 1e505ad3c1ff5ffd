package server

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zkafka/zkafka/clients/protocol"
	"github.com/zkafka/zkafka/clients/record"
)

// smallDisk mounts a tmpfs of size bytes on a new directory; the test skips where mounting is
// not allowed (it needs root).
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// TestLeaderHaltsOnAFullDisk: appending to a leader's log on a full disk halts the broker, as
// 0.10.2's appendToLocalLog does on a KafkaStorageException (so the controller can move the
// leadership to an in-sync replica), and the failed produce is not acknowledged; the HW
// checkpoint task halts too when its file cannot be written (checkpointHighWatermarks).
func TestLeaderHaltsOnAFullDisk(t *testing.T) {
	disk := smallDisk(t, 1<<20)
	e := newApisEnv(t, map[string]string{"log.dirs": disk, "log.index.interval.bytes": "1"})
	e.lead(t, "full", 1, []int32{0})
	acked := 0
	var failed int16
	for i := 0; i < 200 && failed == 0; i++ {
		b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.NONE, record.CreateTime, 0, 0, 0)
		if _, err := b.AppendWithOffset(0, 1_700_000_000_000, nil, make([]byte, 32<<10)); err != nil {
			t.Fatal(err)
		}
		e.handle(produceReq("full", 1, map[int32]record.Records{0: b.Build()}), "p")
		r := decode(t, e.ch.take(t), protocol.Produce, 2).(*protocol.ProduceResponse)
		if failed = r.Responses[0].PartitionResponses[0].ErrorCode; failed == 0 {
			acked++
			if n := e.halts.Load(); n != 0 {
				t.Fatalf("produce %d acknowledged after %d halts", i, n)
			}
		}
	}
	if failed == 0 {
		t.Fatal("the 1 MiB disk never filled")
	}
	if failed != protocol.ErrUnknown.Code || e.halts.Load() != 1 {
		t.Errorf("the failed append answered %d and halted %d times; want UNKNOWN after one halt", failed, e.halts.Load())
	}
	t.Logf("%d produces of 32 KiB acknowledged before the disk was full", acked)

	// The HW checkpoint task (started by the LeaderAndIsr) cannot write its file either.
	e.clock.Sleep(10 * time.Second)
	e.sched.Tick()
	if n := e.halts.Load(); n < 2 {
		t.Errorf("the HW checkpoint on a full disk did not halt (%d halts)", n)
	}
}
