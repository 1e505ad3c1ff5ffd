package admin

import (
	"math/rand/v2"
	"sort"
	"strconv"
)

// AssignReplicasToBrokers spreads nPartitions partitions of replicationFactor
// replicas over the brokers (sorted by id), rack-aware when every broker has a
// rack. A fixedStartIndex >= 0 is used both as the start index and as the
// follower shift (the add-partitions path); otherwise both are drawn from rnd,
// start index first, as Kafka draws them. startPartitionID < 0 means 0.
//
// Kafka 0.10.2: AdminUtils.assignReplicasToBrokers.
func AssignReplicasToBrokers(brokers []BrokerMetadata, nPartitions, replicationFactor, fixedStartIndex, startPartitionID int32, rnd *rand.Rand) (map[int32][]int32, error) {
	if err := checkAssignmentArgs(brokers, nPartitions, replicationFactor); err != nil {
		return nil, err
	}
	start, shift := fixedStartIndex, fixedStartIndex
	if fixedStartIndex < 0 {
		n := int32(len(brokers))
		start = rnd.Int32N(n)
		shift = rnd.Int32N(n)
	}
	return AssignReplicasWith(brokers, nPartitions, replicationFactor, start, shift, startPartitionID)
}

// AssignReplicasWith is the assignment with Kafka's two random draws given as
// parameters: startIndex places partition 0's leader in the broker list and
// nextReplicaShift offsets the followers. Given the same numbers it returns
// what Kafka returns (AdminUtilsTest.testReplicaAssignment's examples).
//
// Kafka 0.10.2: AdminUtils.assignReplicasToBrokersRackUnaware / RackAware.
func AssignReplicasWith(brokers []BrokerMetadata, nPartitions, replicationFactor, startIndex, nextReplicaShift, startPartitionID int32) (map[int32][]int32, error) {
	if err := checkAssignmentArgs(brokers, nPartitions, replicationFactor); err != nil {
		return nil, err
	}
	withRack := 0
	for _, b := range brokers {
		if b.Rack != "" {
			withRack++
		}
	}
	if withRack == 0 {
		ids := make([]int32, len(brokers))
		for i, b := range brokers {
			ids[i] = b.ID
		}
		return assignRackUnaware(nPartitions, replicationFactor, ids, startIndex, nextReplicaShift, startPartitionID), nil
	}
	if withRack < len(brokers) {
		return nil, NewAdminOperationException("Not all brokers have rack information for replica rack aware assignment")
	}
	return assignRackAware(nPartitions, replicationFactor, brokers, startIndex, nextReplicaShift, startPartitionID), nil
}

func checkAssignmentArgs(brokers []BrokerMetadata, nPartitions, replicationFactor int32) error {
	if nPartitions <= 0 {
		return newError(ErrInvalidPartitions, "number of partitions must be larger than 0")
	}
	if replicationFactor <= 0 {
		return newError(ErrInvalidReplicationFactor, "replication factor must be larger than 0")
	}
	if int(replicationFactor) > len(brokers) {
		return newError(ErrInvalidReplicationFactor, "replication factor: "+strconv.Itoa(int(replicationFactor))+
			" larger than available brokers: "+strconv.Itoa(len(brokers)))
	}
	return nil
}

// assignRackUnaware: leaders go round-robin from startIndex; the followers of
// a partition sit at distinct offsets 1+shift, 2+shift, ... (mod n-1) from the
// leader, so they never land on it; the shift grows by one every time the
// leaders wrap around the list, which spreads followers across rounds.
func assignRackUnaware(nPartitions, rf int32, brokers []int32, startIndex, shift, startPartitionID int32) map[int32][]int32 {
	n := int32(len(brokers))
	out := make(map[int32][]int32, nPartitions)
	p := max(0, startPartitionID)
	for range nPartitions {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + startIndex) % n
		replicas := []int32{brokers[first]}
		for j := range rf - 1 {
			replicas = append(replicas, brokers[replicaIndex(first, shift, j, n)])
		}
		out[p] = replicas
		p++
	}
	return out
}

// assignRackAware runs the same walk over a list that alternates racks, and
// skips a candidate follower whose rack (or broker) already holds a replica
// of the partition while another rack (or broker) does not. The candidate
// counter k runs on across the followers of one partition.
func assignRackAware(nPartitions, rf int32, brokers []BrokerMetadata, startIndex, shift, startPartitionID int32) map[int32][]int32 {
	rackOf := make(map[int32]string, len(brokers))
	racks := map[string]bool{}
	for _, b := range brokers {
		rackOf[b.ID] = b.Rack
		racks[b.Rack] = true
	}
	numRacks := int32(len(racks))
	list := RackAlternatedBrokerList(rackOf)
	n := int32(len(list))
	out := make(map[int32][]int32, nPartitions)
	p := max(0, startPartitionID)
	for range nPartitions {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + startIndex) % n
		leader := list[first]
		replicas := []int32{leader}
		racksUsed := map[string]bool{rackOf[leader]: true}
		brokersUsed := map[int32]bool{leader: true}
		k := int32(0)
		for range rf - 1 {
			for {
				b := list[replicaIndex(first, shift*numRacks, k, n)]
				k++
				rack := rackOf[b]
				if (!racksUsed[rack] || int32(len(racksUsed)) == numRacks) &&
					(!brokersUsed[b] || int32(len(brokersUsed)) == n) {
					replicas = append(replicas, b)
					racksUsed[rack] = true
					brokersUsed[b] = true
					break
				}
			}
		}
		out[p] = replicas
		p++
	}
	return out
}

// replicaIndex is the position of a follower: never the leader's own.
func replicaIndex(first, shift, j, n int32) int32 {
	return (first + 1 + (shift+j)%(n-1)) % n
}

// RackAlternatedBrokerList orders brokers so that consecutive entries come from
// different racks: racks sorted by name, brokers of a rack by id, one broker
// from each rack in turn. Example: 0→rack1, 1→rack3, 2→rack3, 3→rack2, 4→rack2,
// 5→rack1 gives 0,3,1,5,4,2.
//
// Kafka 0.10.2: AdminUtils.getRackAlternatedBrokerList.
func RackAlternatedBrokerList(rackOf map[int32]string) []int32 {
	byRack := map[string][]int32{}
	for id, r := range rackOf {
		byRack[r] = append(byRack[r], id)
	}
	racks := make([]string, 0, len(byRack))
	for r, ids := range byRack {
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		racks = append(racks, r)
	}
	sort.Strings(racks)
	out := make([]int32, 0, len(rackOf))
	next := make(map[string]int, len(racks))
	for i := 0; len(out) < len(rackOf); i = (i + 1) % len(racks) {
		r := racks[i]
		if next[r] < len(byRack[r]) {
			out = append(out, byRack[r][next[r]])
			next[r]++
		}
	}
	return out
}
