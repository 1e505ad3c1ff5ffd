// Package zksecuritymigration is zookeeper-security-migration.sh: it sets the ACLs of Kafka's
// znodes to the secure (zookeeper.set.acl=true) or the open form, for turning ZooKeeper
// authentication on or off in a running cluster.
//
// Kafka 0.10.2: kafka.admin.ZkSecurityMigrator.
package zksecuritymigration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/clients/security"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// UsageMessage heads the help of the tool.
const UsageMessage = "ZooKeeper Migration Tool Help. This tool updates the ACLs of " +
	"znodes as part of the process of setting up ZooKeeper authentication."

// Run is zookeeper-security-migration.sh; it returns the exit code. As in 0.10.2, a failure
// after the options are read (no JAAS file, no Client section, a ZooKeeper error) is printed
// and the tool still exits 0; only usage errors exit 1.
//
// Kafka 0.10.2: ZkSecurityMigrator.main / run.
func Run(_ context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	var ue *commandline.UsageError
	switch {
	case err == nil:
		return commandline.ExitOK
	case errors.As(err, &ue):
		return commandline.Fail(stderr, err)
	default:
		// main's catch: e.printStackTrace(), and the JVM exits normally.
		fmt.Fprintln(stderr, err)
		return commandline.ExitOK
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	kafkaOpts := os.Getenv("KAFKA_OPTS")
	jaasFile := security.JaasFileFromOpts(kafkaOpts)
	parser := commandline.NewOptionParser()
	zkAclOpt := parser.Accepts("zookeeper.acl", "Indicates whether to make the Kafka znodes in ZooKeeper secure or unsecure."+
		" The options are 'secure' and 'unsecure'").WithRequiredArg().OfType("String")
	zkURLOpt := parser.Accepts("zookeeper.connect", "Sets the ZooKeeper connect string (ensemble). This parameter "+
		"takes a comma-separated list of host:port pairs.").WithRequiredArg().DefaultsTo("localhost:2181").OfType("String")
	zkSessionTimeoutOpt := parser.Accepts("zookeeper.session.timeout", "Sets the ZooKeeper session timeout.").
		WithRequiredArg().OfType("Integer").DefaultsTo("30000")
	zkConnectionTimeoutOpt := parser.Accepts("zookeeper.connection.timeout", "Sets the ZooKeeper connection timeout.").
		WithRequiredArg().OfType("Integer").DefaultsTo("30000")
	helpOpt := parser.Accepts("help", "Print usage information.")
	options, err := parser.Parse(args...)
	if err != nil {
		var pe *commandline.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("%s: %s", pe.Exception, pe.Message)
		}
		return err
	}
	if options.Has(helpOpt) {
		return commandline.PrintUsageAndDie(parser, UsageMessage)
	}
	if jaasFile == "" {
		fmt.Fprintf(stdout, "ERROR: No JAAS configuration file has been specified. Please make sure that you have set the system property %s\n",
			security.JaasLoginConfigProp)
		return errors.New("java.lang.IllegalArgumentException: Incorrect configuration")
	}
	login, err := security.ZkLoginFromOpts(kafkaOpts)
	if err != nil {
		return fmt.Errorf("org.apache.kafka.common.KafkaException: %w", err)
	}
	if !login.Enabled {
		fmt.Fprintf(stdout, "ERROR: Security isn't enabled, most likely the file isn't set properly: %s\n", jaasFile)
		return errors.New("java.lang.IllegalArgumentException: Incorrect configuration")
	}
	log := commandline.ToolsLogger(stderr, "kafka.admin.ZkSecurityMigrator$")
	var zkAcl bool
	switch options.ValueOf(zkAclOpt) {
	case "secure":
		log.Info("zookeeper.acl option is secure")
		zkAcl = true
	case "unsecure":
		log.Info("zookeeper.acl option is unsecure")
	default:
		return commandline.PrintUsageAndDie(parser, UsageMessage)
	}
	sessionTimeout, err := options.IntValueOf(zkSessionTimeoutOpt)
	if err != nil {
		return err
	}
	connectionTimeout, err := options.IntValueOf(zkConnectionTimeoutOpt)
	if err != nil {
		return err
	}
	z, err := zkutils.Connect(options.ValueOf(zkURLOpt), time.Duration(sessionTimeout)*time.Millisecond,
		time.Duration(connectionTimeout)*time.Millisecond, zkAcl, log.WithField("logger", "kafka.utils.ZkUtils"),
		common.SystemTime{}, zkclient.WithAuth("digest", []byte(login.DigestAuth)))
	if err != nil {
		return err
	}
	m := &ZkSecurityMigrator{ZkUtils: z, Out: stdout, log: log.WithField("logger", "kafka.admin.ZkSecurityMigrator")}
	return m.Run()
}

// ZkSecurityMigrator sets DefaultAcls(isSecure) on the chroot's root and, recursively, on
// every znode below SecureZkRootPaths (creating those roots when missing).
//
// Kafka 0.10.2: kafka.admin.ZkSecurityMigrator. Kafka walks the tree with asynchronous
// getChildren/setACL calls and waits on their futures; zkafka walks it depth-first with
// synchronous calls, which changes the order of the log lines only.
type ZkSecurityMigrator struct {
	ZkUtils *zkutils.ZkUtils
	Out     io.Writer
	log     *logrus.Entry
}

// Run migrates every path and closes the ZkUtils.
func (m *ZkSecurityMigrator) Run() error {
	defer m.ZkUtils.Close()
	if m.log == nil {
		m.log = logrus.NewEntry(logrus.StandardLogger()).WithField("logger", "kafka.admin.ZkSecurityMigrator")
	}
	if err := m.setAcl("/"); err != nil {
		return err
	}
	for _, path := range zkutils.SecureZkRootPaths {
		m.log.Debugf("Going to set ACL for %s", path)
		if err := m.ZkUtils.MakeSurePersistentPathExists(path); err != nil {
			return err
		}
		if err := m.setAclsRecursively(path); err != nil {
			return err
		}
	}
	return nil
}

func (m *ZkSecurityMigrator) setAcl(path string) error {
	m.log.Infof("Setting ACL for path %s", path)
	err := m.ZkUtils.ZkClient.SetACL(path, m.ZkUtils.DefaultAcls(path), -1)
	switch {
	case err == nil:
		m.log.Infof("Successfully set ACLs for %s", path)
		return nil
	case errors.Is(err, zkclient.ErrNoNode):
		m.log.Warnf("Znode is gone, it could be have been legitimately deleted: %s", path)
		return nil
	default:
		return m.unexpected(err)
	}
}

func (m *ZkSecurityMigrator) setAclsRecursively(path string) error {
	if err := m.setAcl(path); err != nil {
		return err
	}
	m.log.Infof("Getting children to set ACLs for path %s", path)
	children, err := m.ZkUtils.ZkClient.GetChildren(path)
	switch {
	case errors.Is(err, zkclient.ErrNoNode):
		m.log.Warnf("Node is gone, it could be have been legitimately deleted: %s", path)
		return nil
	case err != nil:
		return m.unexpected(err)
	}
	for _, child := range children {
		p := path + "/" + child
		if path == "/" {
			p = "/" + child
		}
		if err := m.setAclsRecursively(p); err != nil {
			return err
		}
	}
	return nil
}

// unexpected prints what the callbacks print for a failed call and returns the error.
func (m *ZkSecurityMigrator) unexpected(err error) error {
	if errors.Is(err, zkclient.ErrSessionExpired) {
		fmt.Fprintln(m.Out, "ZooKeeper session expired while changing ACLs")
	} else {
		fmt.Fprintf(m.Out, "Unexpected return code: %v\n", err)
	}
	return err
}
