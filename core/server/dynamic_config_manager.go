package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// DynamicConfigManager applies config changes made in ZooKeeper while the broker runs. A tool
// (kafka-configs.sh, kafka-topics.sh --alter) overwrites /config/<type>/<name> and then adds a
// sequential /config/changes/config_change_N node naming the entity; every broker follows that
// directory, re-reads the named entity's whole config and hands it to the handler of its type.
// The notification carries only the entity, never the values, so a broker that missed
// intermediate changes still converges on the latest config.
//
// Kafka 0.10.2: kafka.server.DynamicConfigManager (its ConfigChangedNotificationHandler is
// ProcessNotification here). Startup also replays every stored entity config into its handler,
// as 0.10.2 does, so quotas and throttles set before this broker started are known (topic
// configs give the logs the same LogConfig LogManager already built from those znodes).
type DynamicConfigManager struct {
	zkUtils        *zkutils.ZkUtils
	configHandlers map[string]ConfigHandler
	listener       *zkutils.ZkNodeChangeNotificationListener
	logger         *logrus.Entry
}

// NewDynamicConfigManager builds the manager; changeExpiration 0 keeps notifications for
// zkutils.DefaultChangeExpiration (15 minutes) before a broker purges them.
func NewDynamicConfigManager(zkUtils *zkutils.ZkUtils, handlers map[string]ConfigHandler, changeExpiration time.Duration,
	logger *logrus.Entry) *DynamicConfigManager {
	m := &DynamicConfigManager{zkUtils: zkUtils, configHandlers: handlers,
		logger: logger.WithField("logger", "kafka.server.DynamicConfigManager")}
	m.listener = zkutils.NewZkNodeChangeNotificationListener(zkUtils, zkutils.ConfigChangesPath,
		zkutils.EntityConfigChangeZnodePrefix, m, changeExpiration)
	return m
}

// Startup starts following /config/changes (processing what is already there) and replays the
// stored configs of every entity type into their handlers.
func (m *DynamicConfigManager) Startup() error {
	if err := m.listener.Init(); err != nil {
		return err
	}
	for _, typ := range zkutils.ConfigTypeAll {
		h, ok := m.configHandlers[typ]
		if !ok {
			continue
		}
		all, err := m.zkUtils.FetchAllEntityConfigs(typ)
		if err != nil {
			return err
		}
		for name, props := range all {
			if err := h.ProcessConfigChanges(name, props); err != nil {
				m.logger.WithError(err).Errorf("Error applying the stored config of %s/%s", typ, name)
			}
		}
		if typ != zkutils.ConfigTypeUser {
			continue
		}
		// <user, client-id> quotas live one level down: /config/users/<user>/clients/<client>.
		for name := range all {
			clients, err := m.zkUtils.GetChildren(zkutils.EntityConfigPath(typ, name) + "/" + zkutils.ConfigTypeClient)
			if err != nil {
				continue // no child configs (the node is absent)
			}
			for _, client := range clients {
				child := name + "/" + zkutils.ConfigTypeClient + "/" + client
				props, err := m.zkUtils.FetchEntityConfig(typ, child)
				if err == nil {
					err = h.ProcessConfigChanges(child, props)
				}
				if err != nil {
					m.logger.WithError(err).Errorf("Error applying the stored config of %s/%s", typ, child)
				}
			}
		}
	}
	return nil
}

// Shutdown stops following /config/changes.
func (m *DynamicConfigManager) Shutdown() { m.listener.Close() }

// LastExecutedChange is the sequence number of the last notification applied (-1 before any).
func (m *DynamicConfigManager) LastExecutedChange() int64 { return m.listener.LastExecutedChange() }

// ProcessNotification implements zkutils.NotificationHandler: it reads the entity the
// notification names and hands its current config to the handler of its type.
func (m *DynamicConfigManager) ProcessNotification(data []byte) error {
	if !json.Valid(data) {
		// Not JSON: written by the pre-0.9 TopicConfigManager; 0.10.2 skips these.
		return nil
	}
	n, err := zkutils.ParseConfigChangeNotification(data)
	if err != nil {
		return err
	}
	typ, name := n.EntityType, n.EntityName
	h, ok := m.configHandlers[typ]
	if !ok || !strings.Contains(n.EntityPath, "/") {
		return fmt.Errorf("Version 2 config change notification must have 'entity_path' starting with 'clients/', 'topics/' or 'users/'. Received: %s", data)
	}
	props, err := m.zkUtils.FetchEntityConfig(typ, name)
	if err != nil {
		return err
	}
	m.logger.Infof("Processing override for entityPath: %s with config: %v", n.EntityPath, props)
	return h.ProcessConfigChanges(name, props)
}
