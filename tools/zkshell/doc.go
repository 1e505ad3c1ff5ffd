// Package zkshell is zookeeper-shell.sh: ZooKeeper's command-line client
// (ZooKeeperMain) for inspecting and editing znodes, run once with a command
// on the command line or over commands read line by line from stdin.
//
// ZooKeeper 3.4.9: org.apache.zookeeper.ZooKeeperMain (not Kafka code; Kafka
// 0.10.2's bin/zookeeper-shell.sh runs it with -server <arg1>).
//
// Bookmap: docs/bookmap.md (001 ch.5, the command-line tools).
//
// Output follows ZooKeeperMain: `ls` prints the children as a Java list
// ("[a, b]") and `get` prints the data (or "null") on stdout; the Stat lines
// (cZxid = 0x…, ctime = <Java Date>, …, numChildren) and "Created <path>" go
// to stderr, as ZooKeeperMain prints them with System.err. ZooKeeper errors
// print one line on stderr ("Node does not exist: /x") and do not change the
// exit status. Differences: children are listed sorted (the server's order is
// unspecified); the connection's watcher event is printed once, right after
// "Connecting to …", rather than whenever the event thread gets to it; ACL
// arguments of create/setAcl, quotas, sync, history/redo and addauth are not
// supported (create always uses the open ACL Kafka uses).
package zkshell
