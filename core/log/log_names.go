package log

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/clients/common"
)

// File and directory name parts (Kafka's object Log).
const (
	LogFileSuffix       = ".log"
	IndexFileSuffix     = ".index"
	TimeIndexFileSuffix = ".timeindex"
	DeletedFileSuffix   = ".deleted"
	CleanedFileSuffix   = ".cleaned"
	SwapFileSuffix      = ".swap"
	CleanShutdownFile   = ".kafka_cleanshutdown"
	DeleteDirSuffix     = "-delete"
)

var deleteDirPattern = regexp.MustCompile(`^(\S+)-(\S+)\.(\S+)` + DeleteDirSuffix + `$`)

// FilenamePrefixFromOffset renders a base offset as the 20-digit zero-padded file name prefix.
func FilenamePrefixFromOffset(offset int64) string { return fmt.Sprintf("%020d", offset) }

// LogFilename is <dir>/<20-digit offset>.log.
func LogFilename(dir string, offset int64) string {
	return filepath.Join(dir, FilenamePrefixFromOffset(offset)+LogFileSuffix)
}

// IndexFilename is <dir>/<20-digit offset>.index.
func IndexFilename(dir string, offset int64) string {
	return filepath.Join(dir, FilenamePrefixFromOffset(offset)+IndexFileSuffix)
}

// TimeIndexFilename is <dir>/<20-digit offset>.timeindex.
func TimeIndexFilename(dir string, offset int64) string {
	return filepath.Join(dir, FilenamePrefixFromOffset(offset)+TimeIndexFileSuffix)
}

// LogDeleteDirName is the name a log directory is renamed to when its topic is deleted:
// <topic>-<partition>.<32 hex chars>-delete.
func LogDeleteDirName(logName string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return logName + "." + hex.EncodeToString(b[:]) + DeleteDirSuffix
}

// ParseTopicPartitionName parses a log directory name (topic-partition, or a -delete directory)
// with Kafka's rules: the partition follows the LAST '-', since topic names may contain '-'.
func ParseTopicPartitionName(dir string) (common.TopicPartition, error) {
	dirName := filepath.Base(dir)
	bad := func() (common.TopicPartition, error) {
		return common.TopicPartition{}, fmt.Errorf("found directory %s, '%s' is not in the form of topic-partition or "+
			"topic-partition.uniqueId-delete (if marked for deletion); Kafka's log directories (and children) should "+
			"only contain Kafka topic data: %w", dir, dirName, ErrIllegalArgument)
	}
	if dir == "" || dirName == "" || dirName == "." || dirName == string(filepath.Separator) || !strings.Contains(dirName, "-") {
		return bad()
	}
	if strings.HasSuffix(dirName, DeleteDirSuffix) && !deleteDirPattern.MatchString(dirName) {
		return bad()
	}
	name := dirName
	if strings.HasSuffix(dirName, DeleteDirSuffix) {
		name = dirName[:strings.LastIndex(dirName, ".")]
	}
	i := strings.LastIndex(name, "-")
	topic, partStr := name[:i], name[i+1:]
	if topic == "" || partStr == "" {
		return bad()
	}
	p, err := strconv.ParseInt(partStr, 10, 32)
	if err != nil {
		return bad()
	}
	return common.TopicPartition{Topic: topic, Partition: int32(p)}, nil
}
