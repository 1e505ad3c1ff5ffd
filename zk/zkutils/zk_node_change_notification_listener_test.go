package zkutils

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zktest"
)

type recordingHandler struct {
	mu    sync.Mutex
	paths []string
}

func (h *recordingHandler) ProcessNotification(data []byte) error {
	n, err := ParseConfigChangeNotification(data)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.paths = append(h.paths, n.EntityPath)
	return nil
}

func (h *recordingHandler) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.paths...)
}

// TestZkNodeChangeNotificationListener: existing notifications are processed at
// Init, new ones once each and in order, and old ones are purged.
func TestZkNodeChangeNotificationListener(t *testing.T) {
	connect := zktest.Chroot(t)
	writer := newTestZkUtils(t, connect)
	if err := writer.SetupCommonPaths(); err != nil {
		t.Fatal(err)
	}
	client, err := zkclient.New(connect, testSessionTimeout, 20*time.Second, zkclient.WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	clock := common.NewMockTime(time.Now().UnixMilli())
	z := NewZkUtils(client, false, testLogger(t), clock)

	for _, topic := range []string{"a", "b"} {
		if _, err := writer.ChangeEntityConfig(ConfigTypeTopic, topic, map[string]string{"k": topic}); err != nil {
			t.Fatal(err)
		}
	}
	h := &recordingHandler{}
	l := NewZkNodeChangeNotificationListener(z, ConfigChangesPath, EntityConfigChangeZnodePrefix, h, 0)
	if err := l.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	if got := h.seen(); !slices.Equal(got, []string{"topics/a", "topics/b"}) {
		t.Fatalf("after Init: %v", got)
	}
	if _, err := writer.ChangeEntityConfig(ConfigTypeClient, ConfigEntityNameDefault, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"topics/a", "topics/b", "clients/<default>"}
	zktest.WaitUntilTrue(t, func() bool { return len(h.seen()) >= len(want) }, "new notification not processed", waitTimeout)
	time.Sleep(100 * time.Millisecond)
	if got := h.seen(); !slices.Equal(got, want) {
		t.Fatalf("seen %q, want %q", got, want)
	}
	if l.LastExecutedChange() != 2 {
		t.Fatalf("last executed change = %d", l.LastExecutedChange())
	}
	// 16 minutes later every notification is obsolete and the next event purges.
	clock.Advance(16 * time.Minute)
	if _, err := writer.ChangeEntityConfig(ConfigTypeTopic, "c", nil); err != nil {
		t.Fatal(err)
	}
	zktest.WaitUntilTrue(t, func() bool {
		c, err := writer.GetChildren(ConfigChangesPath)
		return err == nil && len(c) == 0
	}, "obsolete notifications not purged", waitTimeout)
	if got := h.seen(); len(got) != 4 || got[3] != "topics/c" {
		t.Fatalf("seen %v", got)
	}
}
