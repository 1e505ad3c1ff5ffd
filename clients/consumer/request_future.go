package consumer

import (
	"errors"
	"sync"

	"github.com/zkafka/zkafka/clients/protocol"
)

// RequestFuture is the result of an asynchronous request: completed with a value, or raised with
// an error; listeners run once, when it finishes (on the goroutine that completes it). It is
// safe to read from any goroutine.
//
// Kafka 0.10.2: org.apache.kafka.clients.consumer.internals.RequestFuture.
type RequestFuture[T any] struct {
	mu        sync.Mutex
	done      bool
	value     T
	err       error
	listeners []func(T, error)
}

// NewRequestFuture returns an unfinished future.
func NewRequestFuture[T any]() *RequestFuture[T] { return &RequestFuture[T]{} }

// FailedFuture returns a future already raised with err.
func FailedFuture[T any](err error) *RequestFuture[T] {
	f := NewRequestFuture[T]()
	f.Raise(err)
	return f
}

// CompletedFuture returns a future already completed with v.
func CompletedFuture[T any](v T) *RequestFuture[T] {
	f := NewRequestFuture[T]()
	f.Complete(v)
	return f
}

// IsDone reports a finished future.
func (f *RequestFuture[T]) IsDone() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.done }

// Succeeded reports a future completed with a value.
func (f *RequestFuture[T]) Succeeded() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done && f.err == nil
}

// Failed reports a future raised with an error.
func (f *RequestFuture[T]) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done && f.err != nil
}

// Value is the completed value.
func (f *RequestFuture[T]) Value() T { f.mu.Lock(); defer f.mu.Unlock(); return f.value }

// Exception is the error raised.
func (f *RequestFuture[T]) Exception() error { f.mu.Lock(); defer f.mu.Unlock(); return f.err }

// IsRetriable reports a failure worth retrying (a retriable Kafka error or a disconnection).
func (f *RequestFuture[T]) IsRetriable() bool { return isRetriable(f.Exception()) }

func isRetriable(err error) bool {
	var ke *protocol.Error
	if errors.As(err, &ke) {
		return ke.Retriable
	}
	return errors.Is(err, ErrDisconnect) || errors.Is(err, ErrCoordinatorNotAvailable)
}

// Complete finishes the future with v; a second completion panics, as in Kafka.
func (f *RequestFuture[T]) Complete(v T) { f.finish(v, nil) }

// Raise finishes the future with err.
func (f *RequestFuture[T]) Raise(err error) {
	var zero T
	f.finish(zero, err)
}

func (f *RequestFuture[T]) finish(v T, err error) {
	f.mu.Lock()
	if f.done {
		f.mu.Unlock()
		panic("Invalid attempt to complete a request future which is already complete")
	}
	f.done, f.value, f.err = true, v, err
	ls := f.listeners
	f.listeners = nil
	f.mu.Unlock()
	for _, l := range ls {
		l(v, err)
	}
}

// AddListener runs l when the future finishes (at once if it has).
func (f *RequestFuture[T]) AddListener(l func(T, error)) {
	f.mu.Lock()
	if !f.done {
		f.listeners = append(f.listeners, l)
		f.mu.Unlock()
		return
	}
	v, err := f.value, f.err
	f.mu.Unlock()
	l(v, err)
}

// Compose maps a future's value through adapter into a new future (RequestFuture.compose).
func Compose[T, S any](f *RequestFuture[T], adapter func(T, *RequestFuture[S])) *RequestFuture[S] {
	out := NewRequestFuture[S]()
	f.AddListener(func(v T, err error) {
		if err != nil {
			out.Raise(err)
			return
		}
		adapter(v, out)
	})
	return out
}

// Chain finishes into as f finishes (RequestFuture.chain).
func Chain[T any](f, into *RequestFuture[T]) {
	f.AddListener(func(v T, err error) {
		if err != nil {
			into.Raise(err)
		} else {
			into.Complete(v)
		}
	})
}
