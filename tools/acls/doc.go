// Package acls is kafka-acls.sh: it adds, removes and lists the ACLs of topics, groups and the
// cluster through SimpleAclAuthorizer, straight in ZooKeeper (--authorizer-properties
// zookeeper.connect=host:port), with the --producer and --consumer conveniences.
//
// Kafka 0.10.2: kafka.admin.AclCommand.
package acls
