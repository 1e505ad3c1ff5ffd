package configs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/admin"
	"github.com/zkafka/zkafka/core/log"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkutils"
)

const zkTimeout = 30 * time.Second

// ConfigCommandOptions are the tool's options.
//
// Kafka 0.10.2: ConfigCommand.ConfigCommandOptions.
type ConfigCommandOptions struct {
	Parser  *commandline.OptionParser
	Options *commandline.OptionSet

	ZkConnect, Alter, Describe, EntityType, EntityName, EntityDefault *commandline.OptionSpec
	AddConfig, DeleteConfig, Help, Force                              *commandline.OptionSpec
}

func tabbed(names []string) string {
	return "\n\t" + strings.Join(names, "\n\t") + "\n"
}

// NewConfigCommandOptions declares the options and parses args.
func NewConfigCommandOptions(args []string) (*ConfigCommandOptions, error) {
	p := commandline.NewOptionParser()
	o := &ConfigCommandOptions{Parser: p}
	o.ZkConnect = p.Accepts("zookeeper", "REQUIRED: The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.").
		WithRequiredArg().DescribedAs("urls")
	o.Alter = p.Accepts("alter", "Alter the configuration for the entity.")
	o.Describe = p.Accepts("describe", "List configs for the given entity.")
	o.EntityType = p.Accepts("entity-type", "Type of entity (topics/clients/users/brokers)").WithRequiredArg()
	o.EntityName = p.Accepts("entity-name", "Name of entity (topic name/client id/user principal name/broker id)").WithRequiredArg()
	o.EntityDefault = p.Accepts("entity-default", "Default entity name for clients/users (applies to corresponding entity type in command line)")
	o.AddConfig = p.Accepts("add-config", "Key Value pairs of configs to add. Square brackets can be used to group values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'. The following is a list of valid configurations: "+
		"For entity_type 'topics': "+tabbed(log.ConfigNames())+
		"For entity_type 'brokers': "+tabbed(admin.DynamicBrokerConfigNames)+
		"For entity_type 'users': "+tabbed(admin.DynamicUserConfigNames)+
		"For entity_type 'clients': "+tabbed(admin.DynamicClientConfigNames)+
		"Entity types 'users' and 'clients' may be specified together to update config for clients of a specific user.").WithRequiredArg()
	o.DeleteConfig = p.Accepts("delete-config", "config keys to remove 'k1,k2'").WithRequiredArg().WithValuesSeparatedBy(",")
	o.Help = p.Accepts("help", "Print usage information.")
	o.Force = p.Accepts("force", "Suppress console prompts")
	set, err := p.Parse(args...)
	if err != nil {
		return nil, err
	}
	o.Options = set
	return o, nil
}

// illegalArgument is a java.lang.IllegalArgumentException.
type illegalArgument struct{ msg string }

func (e *illegalArgument) Error() string { return e.msg }

func scalaList(prefix string, s []string) string { return prefix + "(" + strings.Join(s, ", ") + ")" }

// CheckArgs is ConfigCommandOptions.checkArgs.
func (o *ConfigCommandOptions) CheckArgs() error {
	p, set := o.Parser, o.Options
	n := 0
	for _, a := range []*commandline.OptionSpec{o.Alter, o.Describe} {
		if set.Has(a) {
			n++
		}
	}
	if n != 1 {
		return commandline.PrintUsageAndDie(p, "Command must include exactly one action: --describe, --alter")
	}
	if err := commandline.CheckRequiredArgs(p, set, o.ZkConnect, o.EntityType); err != nil {
		return err
	}
	if err := commandline.CheckInvalidArgs(p, set, o.Alter, o.Describe); err != nil {
		return err
	}
	if err := commandline.CheckInvalidArgs(p, set, o.Describe, o.Alter, o.AddConfig, o.DeleteConfig); err != nil {
		return err
	}
	types := set.ValuesOf(o.EntityType)
	has := func(t string) bool {
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	if set.Has(o.Alter) {
		if has(zkutils.ConfigTypeUser) || has(zkutils.ConfigTypeClient) {
			if !set.Has(o.EntityName) && !set.Has(o.EntityDefault) {
				return &illegalArgument{"--entity-name or --entity-default must be specified with --alter of users/clients"}
			}
		} else if !set.Has(o.EntityName) {
			return &illegalArgument{"--entity-name must be specified with --alter of " + scalaList("Buffer", types)}
		}
		if !set.Has(o.AddConfig) && !set.Has(o.DeleteConfig) {
			return &illegalArgument{"At least one of --add-config or --delete-config must be specified with --alter"}
		}
	}
	for _, t := range types {
		known := false
		for _, k := range zkutils.ConfigTypeAll {
			known = known || k == t
		}
		if !known {
			return &illegalArgument{"Invalid entity-type " + t + ", --entity-type must be one of " + scalaList("List", zkutils.ConfigTypeAll)}
		}
	}
	if len(types) == 0 {
		return &illegalArgument{"At least one --entity-type must be specified"}
	}
	if len(types) > 1 && !(len(types) == 2 && has(zkutils.ConfigTypeUser) && has(zkutils.ConfigTypeClient)) {
		return &illegalArgument{"Only 'users' and 'clients' entity types may be specified together"}
	}
	return nil
}

// Run is kafka-configs.sh; it returns the exit code.
//
// Kafka 0.10.2: ConfigCommand.main.
func Run(_ context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := NewConfigCommandOptions(args)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if len(args) == 0 {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(opts.Parser, "Add/Remove entity config for a topic, client, user or broker"))
	}
	if err := opts.CheckArgs(); err != nil {
		var ia *illegalArgument
		if errors.As(err, &ia) {
			fmt.Fprintf(stderr, "Exception in thread \"main\" java.lang.IllegalArgumentException: %s\n", ia.msg)
			return commandline.ExitUsage
		}
		return commandline.Fail(stderr, err)
	}
	logger := commandline.ToolsLogger(stderr, "kafka.admin.ConfigCommand$")
	err = func() error {
		zkUtils, err := commandline.ConnectZk(opts.Options.ValueOf(opts.ZkConnect), zkTimeout, zkTimeout, logger, common.SystemTime{})
		if err != nil {
			return err
		}
		defer zkUtils.Close()
		c := &ConfigCommand{Opts: opts, Admin: admin.NewAdminUtils(zkUtils, nil, logger), Out: stdout}
		if opts.Options.Has(opts.Alter) {
			return c.AlterConfig()
		}
		return c.DescribeConfig()
	}()
	if err != nil {
		fmt.Fprintln(stdout, "Error while executing config command "+err.Error())
		fmt.Fprintln(stdout, exceptionName(err)+": "+err.Error())
	}
	return commandline.ExitOK
}

func exceptionName(err error) string {
	var ia *illegalArgument
	switch {
	case errors.As(err, &ia):
		return "java.lang.IllegalArgumentException"
	case errors.Is(err, admin.ErrInvalidConfig):
		return "org.apache.kafka.common.errors.InvalidConfigurationException"
	case errors.Is(err, admin.ErrAdminOperation):
		return "kafka.admin.AdminOperationException"
	}
	return "java.lang.RuntimeException"
}

// ConfigCommand runs one describe or alter.
//
// Kafka 0.10.2: kafka.admin.ConfigCommand.
type ConfigCommand struct {
	Opts  *ConfigCommandOptions
	Admin *admin.AdminUtils
	Out   io.Writer
}

// Entity is one level of a config entity: a type and, unless describing all,
// a sanitized name.
//
// Kafka 0.10.2: ConfigCommand.Entity.
type Entity struct {
	EntityType    string
	SanitizedName string
	HasName       bool
}

// EntityPath is "<type>/<name>" or "<type>".
func (e Entity) EntityPath() string {
	if e.HasName {
		return e.EntityType + "/" + e.SanitizedName
	}
	return e.EntityType
}

func (e Entity) String() string {
	typeName := e.EntityType
	switch e.EntityType {
	case zkutils.ConfigTypeUser:
		typeName = "user-principal"
	case zkutils.ConfigTypeClient:
		typeName = "client-id"
	case zkutils.ConfigTypeTopic:
		typeName = "topic"
	}
	switch {
	case !e.HasName:
		return e.EntityType
	case e.SanitizedName == zkutils.ConfigEntityNameDefault:
		return "default " + typeName
	}
	name := e.SanitizedName
	if e.EntityType == zkutils.ConfigTypeUser {
		if d, err := url.QueryUnescape(name); err == nil {
			name = d
		}
	}
	return typeName + " '" + name + "'"
}

// ConfigEntity is a root entity and, for <user, client>, a child.
//
// Kafka 0.10.2: ConfigCommand.ConfigEntity.
type ConfigEntity struct {
	Root  Entity
	Child *Entity
}

// FullSanitizedName is the node name under /config/<root type>.
func (c ConfigEntity) FullSanitizedName() string {
	s := c.Root.SanitizedName
	if c.Child != nil {
		s += "/" + c.Child.EntityPath()
	}
	return s
}

func (c ConfigEntity) String() string {
	if c.Child != nil {
		return c.Root.String() + ", " + c.Child.String()
	}
	return c.Root.String()
}

// AllEntities expands entities without names into every entity of that type
// with a config node.
//
// Kafka 0.10.2: ConfigCommand.ConfigEntity.getAllEntities.
func (c ConfigEntity) AllEntities(z *zkutils.ZkUtils) ([]ConfigEntity, error) {
	switch {
	case !c.Root.HasName:
		names, err := z.GetAllEntitiesWithConfig(c.Root.EntityType)
		if err != nil {
			return nil, err
		}
		var out []ConfigEntity
		for _, n := range sortedCopy(names) {
			root := Entity{EntityType: c.Root.EntityType, SanitizedName: n, HasName: true}
			if c.Child == nil {
				out = append(out, ConfigEntity{Root: root})
				continue
			}
			sub, err := ConfigEntity{Root: root, Child: &Entity{EntityType: c.Child.EntityType}}.AllEntities(z)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	case c.Child != nil && !c.Child.HasName:
		names, err := z.GetAllEntitiesWithConfig(c.Root.EntityPath() + "/" + c.Child.EntityType)
		if err != nil {
			return nil, err
		}
		var out []ConfigEntity
		for _, n := range sortedCopy(names) {
			out = append(out, ConfigEntity{Root: c.Root, Child: &Entity{EntityType: c.Child.EntityType, SanitizedName: n, HasName: true}})
		}
		return out, nil
	}
	return []ConfigEntity{c}, nil
}

var legalClientID = regexp.MustCompile(`^[a-zA-Z0-9._-]*$`)

// ParseEntity builds the entity from --entity-type/--entity-name/--entity-default.
//
// Kafka 0.10.2: ConfigCommand.parseEntity and parseQuotaEntity.
func (c *ConfigCommand) ParseEntity() (ConfigEntity, error) {
	o, set := c.Opts, c.Opts.Options
	types := set.ValuesOf(o.EntityType)
	if types[0] != zkutils.ConfigTypeUser && types[0] != zkutils.ConfigTypeClient {
		e := Entity{EntityType: types[0]}
		if set.Has(o.EntityName) {
			e.SanitizedName, e.HasName = set.ValueOf(o.EntityName), true
		}
		return ConfigEntity{Root: e}, nil
	}
	given := set.ValuesOf(o.EntityName)
	var names []string
	for _, s := range set.Specs() {
		switch s {
		case o.EntityName:
			names = append(names, given[0])
			given = given[1:]
		case o.EntityDefault:
			names = append(names, "")
		}
	}
	if set.Has(o.Alter) && len(names) != len(types) {
		return ConfigEntity{}, &illegalArgument{"--entity-name or --entity-default must be specified with each --entity-type for --alter"}
	}
	if len(types) == 2 && types[0] == zkutils.ConfigTypeClient {
		types = []string{types[1], types[0]}
		if len(names) == 2 {
			names = []string{names[1], names[0]}
		}
	}
	var entities []Entity
	for i, t := range types {
		e := Entity{EntityType: t}
		if i < len(names) {
			n := names[i]
			switch {
			case n == "":
				n = zkutils.ConfigEntityNameDefault
			case t == zkutils.ConfigTypeUser:
				n = zkutils.SanitizeQuotaID(n)
			case t == zkutils.ConfigTypeClient:
				if !legalClientID.MatchString(n) {
					return ConfigEntity{}, admin.NewAdminOperationException("Client-id " + n + " is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'")
				}
			}
			e.SanitizedName, e.HasName = n, true
		}
		entities = append(entities, e)
	}
	ce := ConfigEntity{Root: entities[0]}
	if len(entities) > 1 {
		ce.Child = &entities[1]
	}
	return ce, nil
}

// ParseConfigsToBeAdded splits --add-config on commas outside square brackets,
// each part on '=' outside brackets, and strips the brackets from values.
//
// Kafka 0.10.2: ConfigCommand.parseConfigsToBeAdded.
func (c *ConfigCommand) ParseConfigsToBeAdded() (map[string]string, error) {
	props := map[string]string{}
	if !c.Opts.Options.Has(c.Opts.AddConfig) {
		return props, nil
	}
	var pairs [][]string
	for _, item := range splitOutsideBrackets(c.Opts.Options.ValueOf(c.Opts.AddConfig), ',') {
		kv := splitOutsideBrackets(item, '=')
		for len(kv) > 0 && strings.TrimSpace(kv[len(kv)-1]) == "" {
			kv = kv[:len(kv)-1]
		}
		pairs = append(pairs, kv)
	}
	for _, kv := range pairs {
		if len(kv) != 2 {
			return nil, &illegalArgument{`requirement failed: Invalid entity config: all configs to be added must be in the format "key=val".`}
		}
	}
	for _, kv := range pairs {
		v := strings.NewReplacer("[", "", "]", "").Replace(kv[1])
		props[strings.TrimSpace(kv[0])] = strings.TrimSpace(v)
	}
	if v, ok := props[admin.MessageFormatVersionProp]; ok {
		fmt.Fprintf(c.Out, "WARNING: The configuration %s=%s is specified. This configuration will be ignored if the version is newer than the inter.broker.protocol.version specified in the broker.\n",
			admin.MessageFormatVersionProp, v)
	}
	return props, nil
}

// splitOutsideBrackets splits s at sep characters not enclosed in [...]; the
// whitespace around '=' is dropped as Kafka's \s*=\s* does.
func splitOutsideBrackets(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	out = append(out, s[start:])
	if sep == '=' {
		for i := range out {
			out[i] = strings.TrimSpace(out[i])
		}
	}
	// Java's split drops trailing empty strings.
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// AlterConfig merges the additions and deletions into the entity's config and
// writes it with a change notification.
//
// Kafka 0.10.2: ConfigCommand.alterConfig.
func (c *ConfigCommand) AlterConfig() error {
	add, err := c.ParseConfigsToBeAdded()
	if err != nil {
		return err
	}
	var del []string
	for _, k := range c.Opts.Options.ValuesOf(c.Opts.DeleteConfig) {
		del = append(del, strings.TrimSpace(k))
	}
	entity, err := c.ParseEntity()
	if err != nil {
		return err
	}
	entityType, name := entity.Root.EntityType, entity.FullSanitizedName()
	if entityType == zkutils.ConfigTypeUser {
		for _, m := range []string{admin.ScramSha256, admin.ScramSha512} {
			if v, ok := add[m]; ok {
				cred, err := scramCredential(m, v)
				if err != nil {
					return &illegalArgument{err.Error()}
				}
				add[m] = cred
			}
		}
	}
	configs, err := c.Admin.FetchEntityConfig(entityType, name)
	if err != nil {
		return err
	}
	var invalid []string
	for _, k := range del {
		if _, ok := configs[k]; !ok {
			invalid = append(invalid, k)
		}
	}
	if len(invalid) > 0 {
		return &adminConfigError{"Invalid config(s): " + strings.Join(invalid, ",")}
	}
	for k, v := range add {
		configs[k] = v
	}
	for _, k := range del {
		delete(configs, k)
	}
	switch entityType {
	case zkutils.ConfigTypeTopic:
		err = c.Admin.ChangeTopicConfig(name, configs)
	case zkutils.ConfigTypeClient:
		err = c.Admin.ChangeClientIdConfig(name, configs)
	case zkutils.ConfigTypeUser:
		err = c.Admin.ChangeUserOrUserClientIdConfig(name, configs)
	case zkutils.ConfigTypeBroker:
		id, perr := strconv.ParseInt(name, 10, 32)
		if perr != nil {
			return &illegalArgument{"Error parsing broker " + name + ". The broker's Entity Name must be a single integer value"}
		}
		err = c.Admin.ChangeBrokerConfig([]int32{int32(id)}, configs)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Out, "Completed Updating config for entity: %s.\n", entity)
	return nil
}

// adminConfigError is org.apache.kafka.common.errors.InvalidConfigurationException.
type adminConfigError struct{ msg string }

func (e *adminConfigError) Error() string { return e.msg }
func (e *adminConfigError) Unwrap() error { return admin.ErrInvalidConfig }

// DescribeConfig prints "Configs for <entity> are k=v,..." per entity.
//
// Kafka 0.10.2: ConfigCommand.describeConfig.
func (c *ConfigCommand) DescribeConfig() error {
	entity, err := c.ParseEntity()
	if err != nil {
		return err
	}
	allUsers := entity.Root.EntityType == zkutils.ConfigTypeUser && !entity.Root.HasName && entity.Child == nil
	entities, err := entity.AllEntities(c.Admin.ZkUtils)
	if err != nil {
		return err
	}
	for _, e := range entities {
		cfg, err := c.Admin.FetchEntityConfig(e.Root.EntityType, e.FullSanitizedName())
		if err != nil {
			return err
		}
		if len(cfg) > 0 || !allUsers {
			fmt.Fprintf(c.Out, "Configs for %s are %s\n", e, admin.FormatProperties(cfg))
		}
	}
	return nil
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
