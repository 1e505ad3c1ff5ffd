package zkutils

import "github.com/zkafka/zkafka/zk/zkclient"

// DefaultAcls is the ACL of a znode Kafka creates at path: OPEN_ACL_UNSAFE without
// zookeeper.set.acl; with it CREATOR_ALL plus, outside the sensitive paths, world READ.
//
// Kafka 0.10.2: ZkUtils.defaultAcls(isSecure, path).
func DefaultAcls(isSecure bool, path string) []zkclient.ACL {
	if !isSecure {
		return zkclient.OpenACLUnsafe()
	}
	acl := zkclient.CreatorAllACL()
	if !SensitivePath(path) {
		acl = append(acl, zkclient.ReadACLUnsafe()...)
	}
	return acl
}

// createACL is the ACL provider of a secure ZkUtils' client: DefaultAcls, except /consumers,
// which makeSurePersistentPathExists leaves open so that old consumers without a ZooKeeper login
// can still register below it.
func createACL(isSecure bool) func(path string) []zkclient.ACL {
	return func(path string) []zkclient.ACL {
		if path == "" || path == ConsumersPath {
			return zkclient.OpenACLUnsafe()
		}
		return DefaultAcls(isSecure, path)
	}
}

// DefaultAcls is ZkUtils.defaultAcls(path) of this instance.
func (z *ZkUtils) DefaultAcls(path string) []zkclient.ACL { return DefaultAcls(z.IsSecure, path) }
