package preferredelection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkclient"
	"github.com/zkafka/zkafka/zk/zkutils"
)

const zkTimeout = 30 * time.Second

// Run is kafka-preferred-replica-election.sh; it returns the exit code.
//
// Kafka 0.10.2: PreferredReplicaLeaderElectionCommand.main.
func Run(_ context.Context, args []string, stdout, stderr io.Writer) int {
	p := commandline.NewOptionParser()
	jsonFile := p.Accepts("path-to-json-file", "The JSON file with the list of partitions for which preferred replica leader election should be done, in the following format - \n"+
		"{\"partitions\":\n\t[{\"topic\": \"foo\", \"partition\": 1},\n\t {\"topic\": \"foobar\", \"partition\": 2}]\n}\nDefaults to all existing partitions").
		WithRequiredArg().DescribedAs("list of partitions for which preferred replica leader election needs to be triggered")
	zkConnect := p.Accepts("zookeeper", "REQUIRED: The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.").
		WithRequiredArg().DescribedAs("urls")
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(p, "This tool causes leadership for each partition to be transferred back to the 'preferred replica', it can be used to balance leadership among the servers."))
	}
	opts, err := p.Parse(args...)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if err := commandline.CheckRequiredArgs(p, opts, zkConnect); err != nil {
		return commandline.Fail(stderr, err)
	}
	log := commandline.ToolsLogger(stderr, "kafka.admin.PreferredReplicaLeaderElectionCommand$")
	err = func() error {
		zkUtils, err := commandline.ConnectZk(opts.ValueOf(zkConnect), zkTimeout, zkTimeout, log, common.SystemTime{})
		if err != nil {
			return err
		}
		defer zkUtils.Close()
		var partitions []common.TopicPartition
		if opts.Has(jsonFile) {
			data, err := os.ReadFile(opts.ValueOf(jsonFile))
			if err != nil {
				return err
			}
			if partitions, err = ParsePreferredReplicaElectionData(data); err != nil {
				return err
			}
		} else {
			if partitions, err = zkUtils.GetAllPartitions(); err != nil {
				return err
			}
			sortPartitions(partitions)
		}
		return MoveLeaderToPreferredReplica(zkUtils, partitions, stdout)
	}()
	if err != nil {
		fmt.Fprintln(stdout, "Failed to start preferred replica election")
		fmt.Fprintln(stdout, stackTrace(err))
	}
	return commandline.ExitOK
}

// stackTrace renders the exception chain the way the JVM's first lines do.
func stackTrace(err error) string {
	var cmd *commandFailed
	if errors.As(err, &cmd) {
		return "kafka.admin.AdminCommandFailedException: Admin command failed\nCaused by: " + stackTrace(cmd.cause)
	}
	if errors.Is(err, admin.ErrAdminOperation) {
		return "kafka.admin.AdminOperationException: " + err.Error()
	}
	return "java.lang.RuntimeException: " + err.Error()
}

// commandFailed is AdminCommandFailedException("Admin command failed", cause).
type commandFailed struct{ cause error }

func (e *commandFailed) Error() string { return "Admin command failed" }
func (e *commandFailed) Unwrap() []error {
	return []error{admin.ErrAdminCommandFailed, e.cause}
}

func sortPartitions(s []common.TopicPartition) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].Topic != s[j].Topic {
			return s[i].Topic < s[j].Topic
		}
		return s[i].Partition < s[j].Partition
	})
}

// ParsePreferredReplicaElectionData reads the --path-to-json-file list, in
// file order without duplicates (which are an error).
//
// Kafka 0.10.2: PreferredReplicaLeaderElectionCommand.parsePreferredReplicaElectionData.
func ParsePreferredReplicaElectionData(data []byte) ([]common.TopicPartition, error) {
	var j map[string]json.RawMessage
	if json.Unmarshal(data, &j) != nil || j["partitions"] == nil {
		return nil, admin.NewAdminOperationException("Preferred replica election data is empty")
	}
	var raw []struct {
		Topic     *string `json:"topic"`
		Partition *int32  `json:"partition"`
	}
	if err := json.Unmarshal(j["partitions"], &raw); err != nil {
		return nil, admin.NewAdminOperationException("Preferred replica election data is empty")
	}
	seen := map[common.TopicPartition]int{}
	var out []common.TopicPartition
	var dups []string
	for _, r := range raw {
		if r.Topic == nil || r.Partition == nil {
			return nil, admin.NewAdminOperationException("None.get")
		}
		tp := common.TopicPartition{Topic: *r.Topic, Partition: *r.Partition}
		seen[tp]++
		if seen[tp] == 1 {
			out = append(out, tp)
		} else if seen[tp] == 2 {
			dups = append(dups, admin.TopicPartitionString(tp))
		}
	}
	if len(dups) > 0 {
		return nil, admin.NewAdminOperationException("Preferred replica election data contains duplicate partitions: " + strings.Join(dups, ","))
	}
	return out, nil
}

// scalaSet renders partitions as Scala prints a Set[TopicAndPartition].
func scalaSet(s []common.TopicPartition) string {
	parts := make([]string, len(s))
	for i, tp := range s {
		parts[i] = admin.TopicPartitionString(tp)
	}
	return "Set(" + strings.Join(parts, ", ") + ")"
}

// MoveLeaderToPreferredReplica writes the election request for the partitions
// that exist and reports the others as skipped.
//
// Kafka 0.10.2: PreferredReplicaLeaderElectionCommand.moveLeaderToPreferredReplica.
func MoveLeaderToPreferredReplica(zkUtils *zkutils.ZkUtils, partitions []common.TopicPartition, out io.Writer) error {
	topicSet := map[string]bool{}
	var topics []string
	for _, tp := range partitions {
		if !topicSet[tp.Topic] {
			topicSet[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	existing, err := zkUtils.GetPartitionsForTopics(topics)
	if err != nil {
		return &commandFailed{err}
	}
	var valid, invalid []common.TopicPartition
	for _, tp := range partitions {
		found := false
		for _, p := range existing[tp.Topic] {
			found = found || p == tp.Partition
		}
		if found {
			valid = append(valid, tp)
		} else {
			invalid = append(invalid, tp)
		}
	}
	if err := WritePreferredReplicaElectionData(zkUtils, valid, out); err != nil {
		return &commandFailed{err}
	}
	fmt.Fprintf(out, "Successfully started preferred replica election for partitions %s\n", scalaSet(valid))
	for _, tp := range invalid {
		fmt.Fprintf(out, "Skipping preferred replica leader election for partition %s since it doesn't exist.\n", admin.TopicPartitionString(tp))
	}
	return nil
}

// WritePreferredReplicaElectionData creates /admin/preferred_replica_election;
// an election already in progress is an error naming its partitions.
//
// Kafka 0.10.2: PreferredReplicaLeaderElectionCommand.writePreferredReplicaElectionData.
func WritePreferredReplicaElectionData(zkUtils *zkutils.ZkUtils, partitions []common.TopicPartition, out io.Writer) error {
	data := zkutils.PreferredReplicaElectionZkData(partitions)
	err := zkUtils.CreatePersistentPath(zkutils.PreferredReplicaLeaderElectionPath, data)
	if errors.Is(err, zkclient.ErrNodeExists) {
		current, _, rerr := zkUtils.ReadData(zkutils.PreferredReplicaLeaderElectionPath)
		if rerr != nil {
			return admin.NewAdminOperationException(rerr.Error())
		}
		inProgress, perr := ParsePreferredReplicaElectionData(current)
		if perr != nil {
			return perr
		}
		return admin.NewAdminOperationException("Preferred replica leader election currently in progress for " + scalaSet(inProgress) + ". Aborting operation")
	}
	if err != nil {
		return admin.NewAdminOperationException(err.Error())
	}
	fmt.Fprintf(out, "Created preferred replica election path with %s\n", data)
	return nil
}
