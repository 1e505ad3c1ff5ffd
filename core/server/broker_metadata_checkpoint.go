package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	kconfig "github.com/zkafka/zkafka/clients/config"
)

// BrokerMetadataFile is the name of the broker id file in every data directory.
const BrokerMetadataFile = "meta.properties"

// BrokerMetadataCheckpoint reads and writes meta.properties (version=0, broker.id=N) in one
// data directory, in java.util.Properties.store's format (an empty comment line, the date
// comment, then the keys), written to a .tmp file, fsynced and renamed into place.
//
// Kafka 0.10.2: kafka.server.BrokerMetadataCheckpoint.
type BrokerMetadataCheckpoint struct {
	path string
}

// NewBrokerMetadataCheckpoint is the checkpoint of dir/meta.properties.
func NewBrokerMetadataCheckpoint(dir string) *BrokerMetadataCheckpoint {
	return &BrokerMetadataCheckpoint{path: filepath.Join(dir, BrokerMetadataFile)}
}

// Write stores brokerID.
func (c *BrokerMetadataCheckpoint) Write(brokerID int32, now time.Time) error {
	// java.util.Date.toString: "EEE MMM dd HH:mm:ss zzz yyyy".
	content := "#\n#" + now.Format("Mon Jan 02 15:04:05 MST 2006") + "\nversion=0\nbroker.id=" + strconv.Itoa(int(brokerID)) + "\n"
	tmp := c.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, c.path)
}

// Read returns the stored broker id; ok is false when the file does not exist.
func (c *BrokerMetadataCheckpoint) Read() (brokerID int32, ok bool, err error) {
	_ = os.Remove(c.path + ".tmp") // a leftover of a crash during Write
	props, err := kconfig.LoadProps(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if v := props["version"]; v != "0" {
		return 0, false, fmt.Errorf("unrecognized version of the server meta.properties file: %s", v)
	}
	id, err := strconv.ParseInt(props["broker.id"], 10, 32)
	if err != nil || id < 0 {
		return 0, false, fmt.Errorf("failed to read %s: broker.id %q is not in [0, %d]", c.path, props["broker.id"], int32(^uint32(0)>>1))
	}
	return int32(id), true, nil
}
