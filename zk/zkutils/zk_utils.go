package zkutils

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkclient"
)

// ErrNamespaceMissing is ConfigException("Zookeeper namespace does not exist"):
// the chroot of zookeeper.connect is gone.
var ErrNamespaceMissing = errors.New("zookeeper namespace does not exist")

// ZkUtils is Kafka's typed access to its znodes: the path helpers, the create /
// update / delete idioms with their parent-creation and conflict rules, and the
// reads every component shares.
//
// Kafka 0.10.2: kafka.utils.ZkUtils (+ ZkPath). Differences: the namespace check
// is per instance (Kafka used a JVM-wide flag); the ACL of each create is chosen by the client
// (zkclient.WithACL, set by Connect from isSecure) rather than passed with every call.
type ZkUtils struct {
	ZkClient *zkclient.Client
	IsSecure bool

	// EphemeralConflictTimeout bounds how long RegisterBrokerInZk (and the other
	// ZKCheckedEphemeral users) wait for an ephemeral node owned by another
	// session to disappear before failing. Kafka 0.10.2 fails at once (0); the
	// default here is the session timeout given to Connect, enough for a previous
	// session of the same broker to expire.
	EphemeralConflictTimeout time.Duration

	log              *logrus.Entry
	time             common.Time
	namespaceChecked atomic.Bool
}

// NewZkUtils wraps an existing client (the ZkUtils(zkClient, isSecure) factory).
func NewZkUtils(client *zkclient.Client, isSecure bool, log *logrus.Entry, clock common.Time) *ZkUtils {
	if log == nil {
		log = logrus.NewEntry(logrus.StandardLogger()).WithField("logger", "kafka.utils.ZkUtils")
	}
	if clock == nil {
		clock = common.SystemTime{}
	}
	return &ZkUtils{ZkClient: client, IsSecure: isSecure, log: log, time: clock}
}

// Connect opens a client on zkURL (with optional chroot) and wraps it
// (ZkUtils.apply). With isSecure every znode it creates gets DefaultAcls(true, path); the
// session's ZooKeeper login is a zkclient.WithAuth option among opts.
func Connect(zkURL string, sessionTimeout, connectionTimeout time.Duration, isSecure bool, log *logrus.Entry, clock common.Time, opts ...zkclient.Option) (*ZkUtils, error) {
	if log != nil {
		opts = append([]zkclient.Option{zkclient.WithLogger(log)}, opts...)
	}
	if isSecure {
		opts = append([]zkclient.Option{zkclient.WithACL(createACL(true))}, opts...)
	}
	client, err := zkclient.New(zkURL, sessionTimeout, connectionTimeout, opts...)
	if err != nil {
		return nil, err
	}
	z := NewZkUtils(client, isSecure, log, clock)
	z.EphemeralConflictTimeout = sessionTimeout
	return z, nil
}

// Close closes the client.
func (z *ZkUtils) Close() {
	if z.ZkClient != nil {
		z.ZkClient.Close()
	}
}

// checkNamespace fails once the chroot is gone (ZkPath.checkNamespace); success
// is remembered.
func (z *ZkUtils) checkNamespace() error {
	if z.namespaceChecked.Load() {
		return nil
	}
	ok, err := z.ZkClient.Exists("/")
	if err != nil {
		return err
	}
	if !ok {
		return ErrNamespaceMissing
	}
	z.namespaceChecked.Store(true)
	return nil
}

// MakeSurePersistentPathExists creates path and its parents (null data) unless it
// exists.
func (z *ZkUtils) MakeSurePersistentPathExists(path string) error {
	ok, err := z.ZkClient.Exists(path)
	if err != nil || ok {
		return err
	}
	if err := z.checkNamespace(); err != nil {
		return err
	}
	return z.ZkClient.CreatePersistent(path, nil, true)
}

// SetupCommonPaths creates PersistentZkPaths (every broker does at startup).
func (z *ZkUtils) SetupCommonPaths() error {
	for _, p := range PersistentZkPaths {
		if err := z.MakeSurePersistentPathExists(p); err != nil {
			return err
		}
	}
	return nil
}

// createParentPath creates the parents of path (null data).
func (z *ZkUtils) createParentPath(path string) error {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return nil
	}
	if err := z.checkNamespace(); err != nil {
		return err
	}
	return z.ZkClient.CreatePersistent(path[:i], nil, true)
}

// createEphemeralPath creates an ephemeral node, creating parents when missing.
func (z *ZkUtils) createEphemeralPath(path string, data []byte) error {
	if err := z.checkNamespace(); err != nil {
		return err
	}
	err := z.ZkClient.CreateEphemeral(path, data)
	if errors.Is(err, zkclient.ErrNoNode) {
		if err := z.createParentPath(path); err != nil {
			return err
		}
		err = z.ZkClient.CreateEphemeral(path, data)
	}
	return err
}

// CreateEphemeralPathExpectConflict creates an ephemeral node; an existing node
// holding exactly data counts as our own earlier create (connection loss), any
// other content is ErrNodeExists.
func (z *ZkUtils) CreateEphemeralPathExpectConflict(path string, data []byte) error {
	err := z.createEphemeralPath(path, data)
	if !errors.Is(err, zkclient.ErrNodeExists) {
		return err
	}
	stored, _, rerr := z.ZkClient.ReadData(path)
	if rerr != nil || string(stored) != string(data) {
		z.log.Infof("conflict in %s data: %s stored data: %s", path, data, stored)
		return err
	}
	z.log.Infof("%s exists with value %s during connection loss; this is ok", path, data)
	return nil
}

// CreatePersistentPath creates a persistent node, creating parents when missing;
// an existing node is ErrNodeExists.
func (z *ZkUtils) CreatePersistentPath(path string, data []byte) error {
	if err := z.checkNamespace(); err != nil {
		return err
	}
	err := z.ZkClient.CreatePersistent(path, data, false)
	if errors.Is(err, zkclient.ErrNoNode) {
		if err := z.createParentPath(path); err != nil {
			return err
		}
		err = z.ZkClient.CreatePersistent(path, data, false)
	}
	return err
}

// CreateSequentialPersistentPath creates path<seq> and returns its name.
func (z *ZkUtils) CreateSequentialPersistentPath(path string, data []byte) (string, error) {
	if err := z.checkNamespace(); err != nil {
		return "", err
	}
	return z.ZkClient.CreatePersistentSequential(path, data)
}

// UpdatePersistentPath writes data, creating the node (and parents) if missing.
func (z *ZkUtils) UpdatePersistentPath(path string, data []byte) error {
	err := z.ZkClient.WriteData(path, data)
	if !errors.Is(err, zkclient.ErrNoNode) {
		return err
	}
	if err := z.createParentPath(path); err != nil {
		return err
	}
	err = z.ZkClient.CreatePersistent(path, data, false)
	if errors.Is(err, zkclient.ErrNodeExists) {
		return z.ZkClient.WriteData(path, data)
	}
	return err
}

// Checker decides, after a conditional write failed with a bad version, whether
// the node nevertheless holds what we wrote (a retried write whose first attempt
// succeeded) and returns its version.
type Checker func(z *ZkUtils, path string, data []byte) (bool, int32)

// ConditionalUpdatePersistentPath writes data if the node's version is
// expectVersion and returns (true, newVersion); otherwise (false, -1), unless
// checker (if given) recognises the data after a bad version.
func (z *ZkUtils) ConditionalUpdatePersistentPath(path string, data []byte, expectVersion int32, checker Checker) (bool, int32) {
	v, err := z.ZkClient.WriteDataConditional(path, data, expectVersion)
	if err == nil {
		z.log.Debugf("Conditional update of path %s with value %s and expected version %d succeeded, returning the new version: %d", path, data, expectVersion, v)
		return true, v
	}
	if errors.Is(err, zkclient.ErrBadVersion) && checker != nil {
		return checker(z, path, data)
	}
	z.log.Warnf("Conditional update of path %s with data %s and expected version %d failed due to %v", path, data, expectVersion, err)
	return false, -1
}

// ConditionalUpdatePersistentPathIfExists is ConditionalUpdatePersistentPath
// without checker that reports a missing node as ErrNoNode.
func (z *ZkUtils) ConditionalUpdatePersistentPathIfExists(path string, data []byte, expectVersion int32) (bool, int32, error) {
	v, err := z.ZkClient.WriteDataConditional(path, data, expectVersion)
	if err == nil {
		return true, v, nil
	}
	if errors.Is(err, zkclient.ErrNoNode) {
		return false, -1, err
	}
	z.log.Errorf("Conditional update of path %s with data %s and expected version %d failed due to %v", path, data, expectVersion, err)
	return false, -1, nil
}

// UpdateEphemeralPath writes data, creating an ephemeral node (and persistent
// parents) if missing.
func (z *ZkUtils) UpdateEphemeralPath(path string, data []byte) error {
	err := z.ZkClient.WriteData(path, data)
	if !errors.Is(err, zkclient.ErrNoNode) {
		return err
	}
	if err := z.createParentPath(path); err != nil {
		return err
	}
	if err := z.checkNamespace(); err != nil {
		return err
	}
	return z.ZkClient.CreateEphemeral(path, data)
}

// DeletePath deletes a node; false if it did not exist.
func (z *ZkUtils) DeletePath(path string) (bool, error) {
	ok, err := z.ZkClient.Delete(path)
	if err == nil && !ok {
		z.log.Infof("%s deleted during connection loss; this is ok", path)
	}
	return ok, err
}

// ConditionalDeletePath deletes the node if its version is expectedVersion;
// false on a bad version.
func (z *ZkUtils) ConditionalDeletePath(path string, expectedVersion int32) (bool, error) {
	err := z.ZkClient.DeleteConditional(path, expectedVersion)
	if errors.Is(err, zkclient.ErrBadVersion) {
		return false, nil
	}
	return err == nil, err
}

// DeletePathRecursive deletes a subtree; a missing node is fine.
func (z *ZkUtils) DeletePathRecursive(path string) error {
	_, err := z.ZkClient.DeleteRecursive(path)
	return err
}

// ReadData reads a node that must exist.
func (z *ZkUtils) ReadData(path string) ([]byte, *zkclient.Stat, error) {
	return z.ZkClient.ReadData(path)
}

// ReadDataMaybeNull reads a node; exists is false when it is missing.
func (z *ZkUtils) ReadDataMaybeNull(path string) ([]byte, *zkclient.Stat, bool, error) {
	return z.ZkClient.ReadDataMaybeNull(path)
}

// GetChildren lists the children of a node that must exist.
func (z *ZkUtils) GetChildren(path string) ([]string, error) {
	return z.ZkClient.GetChildren(path)
}

// GetChildrenParentMayNotExist lists children; a missing node has none.
func (z *ZkUtils) GetChildrenParentMayNotExist(path string) ([]string, error) {
	c, err := z.ZkClient.GetChildren(path)
	if errors.Is(err, zkclient.ErrNoNode) {
		return nil, nil
	}
	return c, err
}

// PathExists reports whether path exists.
func (z *ZkUtils) PathExists(path string) (bool, error) { return z.ZkClient.Exists(path) }

// GetSequenceId bumps the version of path (creating it if needed) and returns
// the new version: a cluster-wide counter starting at 1.
func (z *ZkUtils) GetSequenceId(path string) (int32, error) {
	v, err := z.ZkClient.WriteDataConditional(path, []byte(""), -1)
	if errors.Is(err, zkclient.ErrNoNode) {
		if err := z.MakeSurePersistentPathExists(path); err != nil {
			return 0, err
		}
		v, err = z.ZkClient.WriteDataConditional(path, []byte(""), -1)
	}
	return v, err
}

// GetBrokerSequenceId is the next generated broker id: the /brokers/seqid counter
// plus maxReservedBrokerID.
func (z *ZkUtils) GetBrokerSequenceId(maxReservedBrokerID int32) (int32, error) {
	v, err := z.GetSequenceId(BrokerSequenceIdPath)
	if err != nil {
		return 0, err
	}
	return v + maxReservedBrokerID, nil
}

// ErrBrokerAlreadyRegistered is the RuntimeException of registerBrokerInZk when
// another session holds /brokers/ids/<id>.
var ErrBrokerAlreadyRegistered = errors.New("a broker is already registered on the path")

// RegisterBrokerInZk creates the ephemeral /brokers/ids/<id> through
// ZKCheckedEphemeral (Encode chooses the JSON version from info.Version).
func (z *ZkUtils) RegisterBrokerInZk(info BrokerInfo) error {
	path := BrokerIdPath(info.ID)
	e := &ZKCheckedEphemeral{Path: path, Data: info.Encode(), ZkUtils: z, ConflictTimeout: z.EphemeralConflictTimeout}
	if err := e.Create(); err != nil {
		if errors.Is(err, zkclient.ErrNodeExists) {
			return fmt.Errorf("%w %s. This probably indicates that you either have configured a brokerid that is already in use, or else you have shutdown this broker and restarted it faster than the zookeeper timeout so it appears to be re-registering: %w",
				ErrBrokerAlreadyRegistered, path, err)
		}
		return err
	}
	eps := make([]string, len(info.EndPoints))
	for i, e := range info.EndPoints {
		eps[i] = e.ConnectionString()
	}
	z.log.Infof("Registered broker %d at path %s with addresses: %s", info.ID, path, strings.Join(eps, ","))
	return nil
}
