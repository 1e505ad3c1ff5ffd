package admin

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/zkafka/zkafka/zk/zkutils"
)

// ChangeTopicConfig replaces a topic's overrides and notifies the brokers.
//
// Kafka 0.10.2: AdminUtils.changeTopicConfig.
func (a *AdminUtils) ChangeTopicConfig(topic string, config map[string]string) error {
	exists, err := a.TopicExists(topic)
	if err != nil {
		return err
	}
	if !exists {
		return NewAdminOperationException(`Topic "` + topic + `" does not exist.`)
	}
	if err := ValidateTopicConfig(config); err != nil {
		return err
	}
	return a.changeEntityConfig(zkutils.ConfigTypeTopic, topic, config)
}

// ChangeClientIdConfig replaces a client id's quota overrides.
//
// Kafka 0.10.2: AdminUtils.changeClientIdConfig.
func (a *AdminUtils) ChangeClientIdConfig(clientID string, config map[string]string) error {
	if err := ValidateClientDynamicConfig(config); err != nil {
		return err
	}
	return a.changeEntityConfig(zkutils.ConfigTypeClient, clientID, config)
}

// ChangeUserOrUserClientIdConfig replaces a user's (or a user's client's)
// overrides; sanitizedEntityName is "<user>" or "<user>/clients/<client>".
//
// Kafka 0.10.2: AdminUtils.changeUserOrUserClientIdConfig.
func (a *AdminUtils) ChangeUserOrUserClientIdConfig(sanitizedEntityName string, config map[string]string) error {
	var err error
	if sanitizedEntityName == zkutils.ConfigEntityNameDefault || strings.Contains(sanitizedEntityName, "/clients") {
		err = ValidateClientDynamicConfig(config)
	} else {
		err = ValidateUserDynamicConfig(config)
	}
	if err != nil {
		return err
	}
	return a.changeEntityConfig(zkutils.ConfigTypeUser, sanitizedEntityName, config)
}

// ChangeBrokerConfig replaces the dynamic config of each broker, one
// notification per broker.
//
// Kafka 0.10.2: AdminUtils.changeBrokerConfig.
func (a *AdminUtils) ChangeBrokerConfig(brokers []int32, config map[string]string) error {
	if err := ValidateBrokerDynamicConfig(config); err != nil {
		return err
	}
	for _, b := range brokers {
		if err := a.changeEntityConfig(zkutils.ConfigTypeBroker, strconv.Itoa(int(b)), config); err != nil {
			return err
		}
	}
	return nil
}

func (a *AdminUtils) changeEntityConfig(rootType, fullSanitizedName string, config map[string]string) error {
	if config == nil {
		config = map[string]string{}
	}
	_, err := a.ZkUtils.ChangeEntityConfig(rootType, fullSanitizedName, config)
	return err
}

// FetchEntityConfig reads /config/<type>/<name> (empty when absent).
//
// Kafka 0.10.2: AdminUtils.fetchEntityConfig.
func (a *AdminUtils) FetchEntityConfig(rootType, sanitizedName string) (map[string]string, error) {
	return a.ZkUtils.FetchEntityConfig(rootType, sanitizedName)
}

// PropertiesOrder returns the keys of config in the order a java.util.Properties
// holding them iterates, which is the order Kafka's tools print configs in. It
// is read back from the config znode encoding, which replays that order.
func PropertiesOrder(config map[string]string) []string {
	data := zkutils.EntityConfigZkData(config)
	i := bytes.Index(data, []byte(`"config":`))
	var keys []string
	if i >= 0 {
		dec := json.NewDecoder(bytes.NewReader(data[i+len(`"config":`):]))
		if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					break
				}
				var v string
				if err := dec.Decode(&v); err != nil {
					break
				}
				if s, ok := k.(string); ok {
					keys = append(keys, s)
				}
			}
		}
	}
	if len(keys) != len(config) { // cannot happen; keep every key regardless
		return sortedKeys(config)
	}
	return keys
}

// FormatProperties renders a config as Kafka's tools print it: "k=v,k=v" in
// Properties order.
func FormatProperties(config map[string]string) string {
	parts := make([]string, 0, len(config))
	for _, k := range PropertiesOrder(config) {
		parts = append(parts, k+"="+config[k])
	}
	return strings.Join(parts, ",")
}
