package oldconsumer

import (
	"context"
	"testing"

	"github.com/zkafka/zkafka/clients/record"
)

// FuzzConsumerIterator: whatever bytes a broker returns as a partition's record set, the
// fetcher's enqueue and the stream's iterator end in messages or an error, never a panic.
func FuzzConsumerIterator(f *testing.F) {
	b := record.NewMemoryRecordsBuilder(record.MagicValueV1, record.GZIP, record.CreateTime, 5, 0, 0)
	_, _ = b.Append(1, []byte("k"), []byte("v"))
	_, _ = b.Append(2, nil, nil)
	f.Add(b.Build().Bytes())
	plain := record.NewMemoryRecordsBuilder(record.MagicValueV0, record.NONE, record.CreateTime, 0, 0, 0)
	_, _ = plain.Append(-1, []byte("k"), []byte("v"))
	f.Add(plain.Build().Bytes())
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, s, pti := newTestStream(1)
		if err := pti.Enqueue(context.Background(), record.NewMemoryRecords(data)); err != nil {
			t.Fatal(err)
		}
		it := s.Iterator()
		for i := 0; i < 1000; i++ {
			m, err := it.Next()
			if err != nil {
				return
			}
			_, _ = m.Key(), m.Message()
		}
	})
}
