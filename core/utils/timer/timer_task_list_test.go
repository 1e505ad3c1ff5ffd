package timer

import (
	"sync/atomic"
	"testing"
)

type listTestTask struct {
	TimerTask
}

func (*listTestTask) Run() {}

func listSize(l *TimerTaskList) int {
	n := 0
	l.foreach(func(Task) { n++ })
	return n
}

// TestTimerTaskListAll ports TimerTaskListTest.testAll: re-adding a task to another list moves it
// (the shared counter does not change) and cancelling removes it from whichever list holds it.
func TestTimerTaskListAll(t *testing.T) {
	var shared atomic.Int32
	list1 := newTimerTaskList(&shared)
	list2 := newTimerTaskList(&shared)
	list3 := newTimerTaskList(&shared)

	var tasks []*listTestTask
	for i := 1; i <= 10; i++ {
		task := &listTestTask{}
		list1.add(newTimerTaskEntry(task, 10))
		if got := shared.Load(); got != int32(i) {
			t.Fatalf("after %d adds counter = %d", i, got)
		}
		tasks = append(tasks, task)
	}

	move := func(dst *TimerTaskList, ts []*listTestTask) {
		t.Helper()
		for _, task := range ts {
			prev := shared.Load()
			dst.add(newTimerTaskEntry(task, 10)) // the new entry retires the old one
			if got := shared.Load(); got != prev {
				t.Fatalf("re-adding changed the counter %d -> %d", prev, got)
			}
		}
	}
	sizes := func(want1, want2, want3 int) {
		t.Helper()
		if a, b, c := listSize(list1), listSize(list2), listSize(list3); a != want1 || b != want2 || c != want3 {
			t.Fatalf("sizes = %d,%d,%d, want %d,%d,%d", a, b, c, want1, want2, want3)
		}
	}

	move(list2, tasks[:4])
	sizes(6, 4, 0)
	if shared.Load() != 10 {
		t.Fatalf("counter = %d", shared.Load())
	}
	move(list3, tasks[4:])
	sizes(0, 4, 6)
	if shared.Load() != 10 {
		t.Fatalf("counter = %d", shared.Load())
	}

	cancelAll := func(l *TimerTaskList) { l.foreach(func(task Task) { task.timerTask().Cancel() }) }
	cancelAll(list1)
	sizes(0, 4, 6)
	cancelAll(list2)
	sizes(0, 0, 6)
	cancelAll(list3)
	sizes(0, 0, 0)
	if shared.Load() != 0 {
		t.Fatalf("counter after cancelling everything = %d", shared.Load())
	}
}

// TestTimerTaskListFlush checks flush empties the bucket, resets its expiration, hands every entry
// over in insertion order and may be given a function that re-adds into another list.
func TestTimerTaskListFlush(t *testing.T) {
	var shared atomic.Int32
	l := newTimerTaskList(&shared)
	other := newTimerTaskList(&shared)
	var entries []*TimerTaskEntry
	for i := 0; i < 5; i++ {
		e := newTimerTaskEntry(&listTestTask{}, int64(i))
		entries = append(entries, e)
		l.add(e)
	}
	if !l.setExpiration(7) || l.setExpiration(7) {
		t.Fatal("setExpiration must report a change once")
	}
	var got []*TimerTaskEntry
	l.flush(func(e *TimerTaskEntry) {
		got = append(got, e)
		other.add(e)
	})
	if l.getExpiration() != -1 {
		t.Fatalf("expiration after flush = %d", l.getExpiration())
	}
	if len(got) != 5 {
		t.Fatalf("flushed %d entries", len(got))
	}
	for i := range got {
		if got[i] != entries[i] {
			t.Fatalf("flush order differs at %d", i)
		}
	}
	if listSize(l) != 0 || listSize(other) != 5 || shared.Load() != 5 {
		t.Fatalf("sizes %d/%d counter %d", listSize(l), listSize(other), shared.Load())
	}
}
