package admin

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// AdminUtils creates, alters and deletes topics and entity configs in
// ZooKeeper. The broker and controller react to what it writes; it talks to
// no broker itself.
//
// Kafka 0.10.2: kafka.admin.AdminUtils (an object with a JVM-wide Random; here
// an instance with an injected generator and logger).
type AdminUtils struct {
	ZkUtils *zkutils.ZkUtils
	// Rand draws the start index and follower shift of new assignments.
	Rand *rand.Rand
	Log  *logrus.Entry
}

// NewAdminUtils returns an AdminUtils over zkUtils; a nil rnd is seeded from
// the OS, a nil log discards.
func NewAdminUtils(zkUtils *zkutils.ZkUtils, rnd *rand.Rand, log *logrus.Entry) *AdminUtils {
	if rnd == nil {
		rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if log == nil {
		l := logrus.New()
		l.SetOutput(nopWriter{})
		log = logrus.NewEntry(l)
	}
	return &AdminUtils{ZkUtils: zkUtils, Rand: rnd, Log: log.WithField("logger", "kafka.admin.AdminUtils$")}
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// TopicExists reports whether /brokers/topics/<topic> exists.
func (a *AdminUtils) TopicExists(topic string) (bool, error) {
	return a.ZkUtils.PathExists(zkutils.TopicPath(topic))
}

// GetBrokerMetadatas lists the registered brokers (restricted to brokerList
// when it is not nil), sorted by id, with racks as the mode allows.
//
// Kafka 0.10.2: AdminUtils.getBrokerMetadatas.
func (a *AdminUtils) GetBrokerMetadatas(mode RackAwareMode, brokerList []int32) ([]BrokerMetadata, error) {
	all, err := a.ZkUtils.GetAllBrokersInCluster()
	if err != nil {
		return nil, err
	}
	var brokers []zkutils.BrokerInfo
	if brokerList == nil {
		brokers = all
	} else {
		want := map[int32]bool{}
		for _, id := range brokerList {
			want[id] = true
		}
		for _, b := range all {
			if want[b.ID] {
				brokers = append(brokers, b)
			}
		}
	}
	withRack := 0
	for _, b := range brokers {
		if b.Rack != "" {
			withRack++
		}
	}
	if mode == RackAwareEnforced && withRack > 0 && withRack < len(brokers) {
		return nil, NewAdminOperationException("Not all brokers have rack information. Add --disable-rack-aware in command line to make replica assignment without rack information.")
	}
	useRacks := mode == RackAwareEnforced || (mode == RackAwareSafe && withRack == len(brokers))
	out := make([]BrokerMetadata, len(brokers))
	for i, b := range brokers {
		out[i] = BrokerMetadata{ID: b.ID}
		if useRacks {
			out[i].Rack = b.Rack
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// ---- small renderings of JVM values inside Kafka's messages ----

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// duplicates returns the values occurring more than once (CoreUtils.duplicates).
func duplicates(s []int32) []int32 {
	count := map[int32]int{}
	var out []int32
	for _, v := range s {
		count[v]++
		if count[v] == 2 {
			out = append(out, v)
		}
	}
	return out
}

func joinInts(s []int32, sep string) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(int(v))
	}
	return strings.Join(parts, sep)
}

// javaSplit is String.split with a literal separator: without a match the
// result is the whole string (even ""); otherwise trailing empty strings are
// dropped.
func javaSplit(s, sep string) []string {
	if !strings.Contains(s, sep) {
		return []string{s}
	}
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// javaIntArrayString imitates an int[]'s toString ("[I@" and hex digits); the
// digits are a hash of the content instead of a JVM identity hash.
func javaIntArrayString(s []int32) string {
	h := fnv.New32a()
	h.Write([]byte(joinInts(s, ",")))
	return fmt.Sprintf("[I@%x", h.Sum32())
}

// scalaSetString renders a Set[Int] as Scala prints it: Set(0, 1, 2).
func scalaSetString(s []int32) string { return "Set(" + joinInts(s, ", ") + ")" }

// scalaMapString renders an assignment as Scala prints a Map[Int, Seq[Int]],
// partitions ascending: Map(0 -> List(1, 2), 1 -> List(2, 3)).
func scalaMapString(m map[int32][]int32) string {
	ps := make([]int32, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = strconv.Itoa(int(p)) + " -> List(" + joinInts(m[p], ", ") + ")"
	}
	return "Map(" + strings.Join(parts, ", ") + ")"
}

// TopicPartitionString renders a partition as Kafka's TopicAndPartition: [t,p].
func TopicPartitionString(tp common.TopicPartition) string {
	return "[" + tp.Topic + "," + strconv.Itoa(int(tp.Partition)) + "]"
}
