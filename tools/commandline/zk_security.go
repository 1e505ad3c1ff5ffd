package commandline

import (
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// ZkLogin is the ZooKeeper login of a tool: JaasUtils.isZkSecurityEnabled over the JAAS file
// named by -Djava.security.auth.login.config in KAFKA_OPTS, and the zkclient options that
// authenticate the session with it (none without a Client section).
func ZkLogin() (secure bool, opts []zkclient.Option, err error) {
	login, err := security.ZkLoginFromOpts(os.Getenv("KAFKA_OPTS"))
	if err != nil || !login.Enabled {
		return false, nil, err
	}
	return true, []zkclient.Option{zkclient.WithAuth("digest", []byte(login.DigestAuth))}, nil
}

// ConnectZk is ZkUtils(zkUrl, sessionTimeout, connectionTimeout, JaasUtils.isZkSecurityEnabled())
// as Kafka's admin tools open it: with a JAAS Client section the session logs in and the znodes
// the tool creates get secure ACLs.
func ConnectZk(zkURL string, sessionTimeout, connectionTimeout time.Duration, log *logrus.Entry, clock common.Time) (*zkutils.ZkUtils, error) {
	secure, opts, err := ZkLogin()
	if err != nil {
		return nil, err
	}
	return zkutils.Connect(zkURL, sessionTimeout, connectionTimeout, secure, log, clock, opts...)
}
