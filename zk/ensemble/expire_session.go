package ensemble

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// opCloseSession is ZooKeeper's OpCode.closeSession.
const opCloseSession int32 = -11

// errSessionUnknown: the server would not resume the session (it has
// expired already, or the password is wrong).
var errSessionUnknown = errors.New("session expired or wrong password")

// closeSessionXid is an arbitrary xid for the one request ExpireSession sends.
const closeSessionXid = 1

// EncodeConnectRequest returns a length-prefixed jute ConnectRequest
// (protocolVersion 0) that resumes sessionID with passwd.
func EncodeConnectRequest(lastZxidSeen int64, timeOut int32, sessionID int64, passwd []byte) []byte {
	b := make([]byte, 4, 4+4+8+4+8+4+len(passwd))
	b = binary.BigEndian.AppendUint32(b, 0) // protocolVersion
	b = binary.BigEndian.AppendUint64(b, uint64(lastZxidSeen))
	b = binary.BigEndian.AppendUint32(b, uint32(timeOut))
	b = binary.BigEndian.AppendUint64(b, uint64(sessionID))
	b = binary.BigEndian.AppendUint32(b, uint32(len(passwd)))
	b = append(b, passwd...)
	binary.BigEndian.PutUint32(b[:4], uint32(len(b)-4))
	return b
}

// EncodeCloseSession returns a length-prefixed closeSession request: a
// RequestHeader (xid, type -11) with no body.
func EncodeCloseSession(xid int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, 8)
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	op := opCloseSession
	return binary.BigEndian.AppendUint32(b, uint32(op))
}

// ExpireSession ends a live session from outside its client: it connects
// to a running server, resumes the session with its id and password (which
// makes the server drop the original client's connection), and closes it
// with a closeSession request. When the original client reconnects, the
// server answers that the session has expired, as after a real timeout:
// ephemeral nodes are gone and the client must start a new session.
func (e *Ensemble) ExpireSession(ctx context.Context, sessionID int64, passwd []byte) error {
	if sessionID == 0 {
		return errNoSession
	}
	addrs := func() []string {
		var a []string
		for i := 0; i < e.Size(); i++ {
			if e.PID(i) != 0 {
				a = append(a, e.Addr(i))
			}
		}
		return a
	}
	err := expireWithRetry(ctx, addrs, sessionID, passwd)
	if err == nil {
		e.log.WithField("session", fmt.Sprintf("0x%x", sessionID)).Info("ensemble: session expired on request")
	}
	return err
}

// expireWithRetry tries each address in turn, a few rounds. The original
// client races us: it reconnects as soon as the server drops it, and if it
// re-attaches before our closeSession lands, the server drops *our*
// connection instead. Once one attempt may have gone through, a later
// "session unknown" answer means the session is gone, which is success.
func expireWithRetry(ctx context.Context, addrs func() []string, sessionID int64, passwd []byte) error {
	var lastErr error
	tried := false
	for round := 0; round < 5; round++ {
		as := addrs()
		if len(as) == 0 {
			return fmt.Errorf("ensemble: expire session 0x%x: no running server", sessionID)
		}
		for _, a := range as {
			err := expireAt(ctx, a, sessionID, passwd)
			if err == nil || (tried && errors.Is(err, errSessionUnknown)) {
				return nil
			}
			if !errors.Is(err, errSessionUnknown) {
				tried = true
			}
			lastErr = err
		}
		if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("%w (last: %v)", err, lastErr)
		}
	}
	return lastErr
}

// ExpireCaptured expires the latest session capture has seen.
func (e *Ensemble) ExpireCaptured(ctx context.Context, capture *SessionCapture) error {
	id, passwd := capture.Session()
	return e.ExpireSession(ctx, id, passwd)
}

// ExpireSessionAt is ExpireSession against one server address, for a
// ZooKeeper not run by this package (ZK_CONNECT).
func ExpireSessionAt(ctx context.Context, addr string, sessionID int64, passwd []byte) error {
	if sessionID == 0 {
		return errNoSession
	}
	return expireWithRetry(ctx, func() []string { return []string{addr} }, sessionID, passwd)
}

func expireAt(ctx context.Context, addr string, sessionID int64, passwd []byte) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("ensemble: expire session 0x%x: %w", sessionID, err)
	}
	defer conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	// The timeout only matters if the server renegotiates; ask for 6 s.
	if _, err := conn.Write(EncodeConnectRequest(0, 6000, sessionID, passwd)); err != nil {
		return fmt.Errorf("ensemble: expire session 0x%x: send connect: %w", sessionID, err)
	}
	frame, err := readFrame(conn, maxConnectResponse)
	if err != nil {
		return fmt.Errorf("ensemble: expire session 0x%x: read connect response: %w", sessionID, err)
	}
	resp, err := DecodeConnectResponse(frame)
	if err != nil {
		return err
	}
	if resp.SessionID != sessionID {
		return fmt.Errorf("ensemble: expire session 0x%x: server answered session 0x%x: %w", sessionID, resp.SessionID, errSessionUnknown)
	}
	if _, err := conn.Write(EncodeCloseSession(closeSessionXid)); err != nil {
		return fmt.Errorf("ensemble: expire session 0x%x: send closeSession: %w", sessionID, err)
	}
	// Skip anything else (e.g. watch notifications, xid -1) until the
	// reply to our xid.
	for {
		frame, err := readFrame(conn, 1<<20)
		if err != nil {
			return fmt.Errorf("ensemble: expire session 0x%x: read closeSession reply: %w", sessionID, err)
		}
		if len(frame) < 16 {
			return fmt.Errorf("ensemble: expire session 0x%x: short reply header (%d bytes)", sessionID, len(frame))
		}
		xid := int32(binary.BigEndian.Uint32(frame[0:4]))
		code := int32(binary.BigEndian.Uint32(frame[12:16]))
		if xid != closeSessionXid {
			continue
		}
		if code != 0 {
			return fmt.Errorf("ensemble: expire session 0x%x: closeSession error code %d", sessionID, code)
		}
		return nil
	}
}

// readFrame reads one int32-length-prefixed frame of at most max bytes.
func readFrame(r io.Reader, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(hdr[:]))
	if n < 0 || int(n) > max {
		return nil, fmt.Errorf("frame length %d out of range", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}
