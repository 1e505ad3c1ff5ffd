package timer

// priorityQueue is a binary min-heap ordered by less. It backs DelayQueue (buckets by
// expiration) and MockTimer (entries by expiration), standing in for Java's PriorityQueue.
// It is not safe for concurrent use; its owners lock around it. container/heap would box every
// element into an interface; this keeps the elements typed.
type priorityQueue[E any] struct {
	items []E
	less  func(a, b E) bool
}

func (q *priorityQueue[E]) len() int { return len(q.items) }

// peek returns the smallest element; the queue must not be empty.
func (q *priorityQueue[E]) peek() E { return q.items[0] }

func (q *priorityQueue[E]) push(e E) {
	q.items = append(q.items, e)
	i := len(q.items) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(q.items[i], q.items[parent]) {
			break
		}
		q.items[i], q.items[parent] = q.items[parent], q.items[i]
		i = parent
	}
}

// pop removes and returns the smallest element; the queue must not be empty.
func (q *priorityQueue[E]) pop() E {
	top := q.items[0]
	last := len(q.items) - 1
	q.items[0] = q.items[last]
	var zero E
	q.items[last] = zero // let the garbage collector have it
	q.items = q.items[:last]
	i := 0
	for {
		smallest := i
		if l := 2*i + 1; l < last && q.less(q.items[l], q.items[smallest]) {
			smallest = l
		}
		if r := 2*i + 2; r < last && q.less(q.items[r], q.items[smallest]) {
			smallest = r
		}
		if smallest == i {
			return top
		}
		q.items[i], q.items[smallest] = q.items[smallest], q.items[i]
		i = smallest
	}
}
