package ensemble

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// The Mode values the srvr four-letter word reports.
const (
	ModeStandalone = "standalone"
	ModeLeader     = "leader"
	ModeFollower   = "follower"
	ModeObserver   = "observer"
)

// fourLetterTimeout bounds one four-letter-word exchange; a paused server
// accepts the TCP connection (the kernel does) but never answers.
const fourLetterTimeout = 2 * time.Second

// SendFourLetterWord sends cmd (e.g. "srvr", "stat", "mntr") to a server's
// client port and returns the whole answer.
//
// Kafka 0.10.2: kafka.zk.ZkFourLetterWords (which only sends "stat" to probe
// that a server is down; here the answer is read too).
func SendFourLetterWord(addr, cmd string, timeout time.Duration) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", fmt.Errorf("ensemble: %s to %s: %w", cmd, addr, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", fmt.Errorf("ensemble: %s to %s: %w", cmd, addr, err)
	}
	b, err := io.ReadAll(io.LimitReader(conn, 1<<20))
	if err != nil {
		return string(b), fmt.Errorf("ensemble: %s to %s: %w", cmd, addr, err)
	}
	return string(b), nil
}

// ParseMode extracts the Mode: line from a srvr or stat answer.
func ParseMode(answer string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(answer))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Mode:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	if strings.Contains(answer, "not currently serving") {
		return "", errors.New("ensemble: server not currently serving requests")
	}
	return "", fmt.Errorf("ensemble: no Mode line in srvr answer %q", answer)
}

// Mode asks node i for its srvr Mode: standalone, leader or follower. An
// error means the node is down, paused, or not yet in a quorum.
func (e *Ensemble) Mode(i int) (string, error) {
	answer, err := SendFourLetterWord(e.Addr(i), "srvr", fourLetterTimeout)
	if err != nil {
		return "", err
	}
	return ParseMode(answer)
}
