package dockerentrypoint

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/ensemble"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// healthTimeout bounds one health check (the compose file's timeout is longer).
const healthTimeout = 5 * time.Second

// ZooKeeperHealth asks the server at addr for srvr and accepts Mode leader, follower or
// standalone: the server is in a quorum (ruok answers before that).
func ZooKeeperHealth(addr string) (string, error) {
	answer, err := ensemble.SendFourLetterWord(addr, "srvr", healthTimeout)
	if err != nil {
		return "", err
	}
	mode, err := ensemble.ParseMode(answer)
	if err != nil {
		return "", err
	}
	switch mode {
	case ensemble.ModeLeader, ensemble.ModeFollower, ensemble.ModeStandalone:
		return mode, nil
	}
	return mode, fmt.Errorf("ZooKeeper at %s is %s", addr, mode)
}

// BrokerHealth checks that the broker described by env is registered: /brokers/ids/<id>
// exists under zookeeper.connect (chroot included). It returns the registration.
func BrokerHealth(env map[string]string) (string, error) {
	settings, err := BrokerSettings(env)
	if err != nil {
		return "", err
	}
	id, err := brokerID(settings)
	if err != nil {
		return "", err
	}
	n, err := strconv.ParseInt(id, 10, 32)
	if err != nil {
		return "", fmt.Errorf("broker.id %q: %w", id, err)
	}
	quiet := logrus.New()
	quiet.SetOutput(io.Discard)
	z, err := zkutils.Connect(settings["zookeeper.connect"], 6*time.Second, healthTimeout, false, logrus.NewEntry(quiet), common.SystemTime{})
	if err != nil {
		return "", err
	}
	defer z.Close()
	data, _, ok, err := z.ReadDataMaybeNull(zkutils.BrokerIdPath(int32(n)))
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("broker %s is not registered (%s is absent)", id, zkutils.BrokerIdPath(int32(n)))
	}
	return string(data), nil
}

// zooKeeperLocalAddr is the server's own client address, for the health check inside its
// container.
var zooKeeperLocalAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(ZooKeeperPort))
