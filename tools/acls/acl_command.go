package acls

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/zkafka/zkafka/clients/common"
	"github.com/zkafka/zkafka/core/security/auth"
	"github.com/zkafka/zkafka/tools/commandline"
	"github.com/zkafka/zkafka/zk/zkutils"
)

// Stdin answers the --remove confirmation (tests replace it).
var Stdin io.Reader = os.Stdin

// resourceTypeToValidOperations is AclCommand.ResourceTypeToValidOperations, in Kafka's order
// of Operation.values.
var resourceTypeToValidOperations = map[auth.ResourceType][]auth.Operation{
	auth.Topic:   {auth.Read, auth.Write, auth.Delete, auth.Describe, auth.All},
	auth.Group:   {auth.Read, auth.Describe, auth.All},
	auth.Cluster: {auth.Create, auth.ClusterAction, auth.All},
}

// AclCommandOptions are the tool's options.
//
// Kafka 0.10.2: AclCommand.AclCommandOptions.
type AclCommandOptions struct {
	Parser  *commandline.OptionParser
	Options *commandline.OptionSet

	Authorizer, AuthorizerProperties, Topic, Cluster, Group, Add, Remove, List, Operations  *commandline.OptionSpec
	AllowPrincipals, DenyPrincipals, AllowHosts, DenyHosts, Producer, Consumer, Help, Force *commandline.OptionSpec
}

// NewAclCommandOptions declares the options and parses args.
func NewAclCommandOptions(args []string) (*AclCommandOptions, error) {
	p := commandline.NewOptionParser()
	o := &AclCommandOptions{Parser: p}
	o.Authorizer = p.Accepts("authorizer", "Fully qualified class name of the authorizer, defaults to kafka.security.auth.SimpleAclAuthorizer.").
		WithRequiredArg().DescribedAs("authorizer").DefaultsTo(auth.SimpleAclAuthorizerClassName)
	o.AuthorizerProperties = p.Accepts("authorizer-properties", "REQUIRED: properties required to configure an instance of Authorizer. "+
		"These are key=val pairs. For the default authorizer the example values are: zookeeper.connect=localhost:2181").
		WithRequiredArg().DescribedAs("authorizer-properties")
	o.Topic = p.Accepts("topic", "topic to which ACLs should be added or removed. A value of * indicates ACL should apply to all topics.").
		WithRequiredArg().DescribedAs("topic")
	o.Cluster = p.Accepts("cluster", "Add/Remove cluster ACLs.")
	o.Group = p.Accepts("group", "Consumer Group to which the ACLs should be added or removed. A value of * indicates the ACLs should apply to all groups.").
		WithRequiredArg().DescribedAs("group")
	o.Add = p.Accepts("add", "Indicates you are trying to add ACLs.")
	o.Remove = p.Accepts("remove", "Indicates you are trying to remove ACLs.")
	o.List = p.Accepts("list", "List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster to specify a resource.")
	ops := make([]string, len(auth.Operations))
	for i, op := range auth.Operations {
		ops[i] = "\t" + string(op)
	}
	o.Operations = p.Accepts("operation", "Operation that is being allowed or denied. Valid operation names are: \n"+strings.Join(ops, "\n")+"\n").
		WithRequiredArg().DefaultsTo(string(auth.All))
	o.AllowPrincipals = p.Accepts("allow-principal", "principal is in principalType:name format. Note that principalType must be supported by the Authorizer being used. For example, User:* is the wild card indicating all users.").
		WithRequiredArg().DescribedAs("allow-principal")
	o.DenyPrincipals = p.Accepts("deny-principal", "principal is in principalType:name format. By default anyone not added through --allow-principal is denied access. "+
		"You only need to use this option as negation to already allowed set. Note that principalType must be supported by the Authorizer being used. "+
		"For example if you wanted to allow access to all users in the system but not test-user you can define an ACL that allows access to User:* and specify --deny-principal=User:test@EXAMPLE.COM. "+
		"AND PLEASE REMEMBER DENY RULES TAKES PRECEDENCE OVER ALLOW RULES.").WithRequiredArg().DescribedAs("deny-principal")
	o.AllowHosts = p.Accepts("allow-host", "Host from which principals listed in --allow-principal will have access. If you have specified --allow-principal then the default for this option will be set to * which allows access from all hosts.").
		WithRequiredArg().DescribedAs("allow-host")
	o.DenyHosts = p.Accepts("deny-host", "Host from which principals listed in --deny-principal will be denied access. If you have specified --deny-principal then the default for this option will be set to * which denies access from all hosts.").
		WithRequiredArg().DescribedAs("deny-host")
	o.Producer = p.Accepts("producer", "Convenience option to add/remove ACLs for producer role. This will generate ACLs that allows WRITE,DESCRIBE on topic and CREATE on cluster. ")
	o.Consumer = p.Accepts("consumer", "Convenience option to add/remove ACLs for consumer role. This will generate ACLs that allows READ,DESCRIBE on topic and READ on group.")
	o.Help = p.Accepts("help", "Print usage information.")
	o.Force = p.Accepts("force", "Assume Yes to all queries and do not prompt.")
	set, err := p.Parse(args...)
	if err != nil {
		return nil, err
	}
	o.Options = set
	return o, nil
}

// CheckArgs is AclCommandOptions.checkArgs.
func (o *AclCommandOptions) CheckArgs() error {
	p, set := o.Parser, o.Options
	if err := commandline.CheckRequiredArgs(p, set, o.AuthorizerProperties); err != nil {
		return err
	}
	n := 0
	for _, a := range []*commandline.OptionSpec{o.Add, o.Remove, o.List} {
		if set.Has(a) {
			n++
		}
	}
	if n != 1 {
		return commandline.PrintUsageAndDie(p, "Command must include exactly one action: --list, --add, --remove. ")
	}
	for _, c := range []struct {
		used    *commandline.OptionSpec
		invalid []*commandline.OptionSpec
	}{
		{o.List, []*commandline.OptionSpec{o.Producer, o.Consumer, o.AllowHosts, o.AllowPrincipals, o.DenyHosts, o.DenyPrincipals}},
		{o.Producer, []*commandline.OptionSpec{o.Operations, o.DenyPrincipals, o.DenyHosts}},
		{o.Consumer, []*commandline.OptionSpec{o.Operations, o.DenyPrincipals, o.DenyHosts}},
	} {
		if err := commandline.CheckInvalidArgs(p, set, c.used, c.invalid...); err != nil {
			return err
		}
	}
	if set.Has(o.Producer) && !set.Has(o.Topic) {
		return commandline.PrintUsageAndDie(p, "With --producer you must specify a --topic")
	}
	if set.Has(o.Consumer) && (!set.Has(o.Topic) || !set.Has(o.Group) || (!set.Has(o.Producer) && set.Has(o.Cluster))) {
		return commandline.PrintUsageAndDie(p, "With --consumer you must specify a --topic and a --group and no --cluster option should be specified.")
	}
	return nil
}

// resourceAcls is an ordered Map[Resource, Set[Acl]] (Scala's small immutable maps keep
// insertion order).
type resourceAcls struct {
	order []auth.Resource
	acls  map[auth.Resource][]auth.Acl
}

func (r *resourceAcls) put(res auth.Resource, acls []auth.Acl) {
	if r.acls == nil {
		r.acls = map[auth.Resource][]auth.Acl{}
	}
	if _, ok := r.acls[res]; !ok {
		r.order = append(r.order, res)
	}
	r.acls[res] = acls
}

// AclCommand runs one action against an authorizer.
//
// Kafka 0.10.2: kafka.admin.AclCommand.
type AclCommand struct {
	Opts *AclCommandOptions
	Out  io.Writer
	// NewAuthorizer builds a configured authorizer (withAuthorizer); Close is called after use.
	NewAuthorizer func() (auth.Authorizer, error)
	in            *bufio.Reader
}

func (c *AclCommand) withAuthorizer(f func(auth.Authorizer) error) error {
	a, err := c.NewAuthorizer()
	if err != nil {
		return err
	}
	defer a.Close()
	return f(a)
}

func aclLines(acls []auth.Acl) string {
	lines := make([]string, len(acls))
	for i, a := range acls {
		lines[i] = "\t" + a.String()
	}
	return strings.Join(lines, "\n")
}

// AddAcl is AclCommand.addAcl.
func (c *AclCommand) AddAcl() error {
	ra, err := c.resourceToAcls()
	if err != nil {
		return err
	}
	for _, r := range ra.order {
		if len(ra.acls[r]) == 0 {
			return commandline.PrintUsageAndDie(c.Opts.Parser, "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
		}
	}
	if err := c.withAuthorizer(func(a auth.Authorizer) error {
		for _, r := range ra.order {
			fmt.Fprintf(c.Out, "Adding ACLs for resource `%s`: \n %s \n\n", r, aclLines(ra.acls[r]))
			if err := a.AddAcls(ra.acls[r], r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return c.ListAcl()
}

// RemoveAcl is AclCommand.removeAcl: with no principal, every ACL of the resource.
func (c *AclCommand) RemoveAcl() error {
	ra, err := c.resourceToAcls()
	if err != nil {
		return err
	}
	if err := c.withAuthorizer(func(a auth.Authorizer) error {
		for _, r := range ra.order {
			acls := ra.acls[r]
			if len(acls) == 0 {
				if c.confirm(fmt.Sprintf("Are you sure you want to delete all ACLs for resource `%s`? (y/n)", r)) {
					if _, err := a.RemoveResource(r); err != nil {
						return err
					}
				}
			} else if c.confirm(fmt.Sprintf("Are you sure you want to remove ACLs: \n %s \n from resource `%s`? (y/n)", aclLines(acls), r)) {
				if _, err := a.RemoveAcls(acls, r); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return c.ListAcl()
}

// ListAcl is AclCommand.listAcl: the given resources, or every resource with ACLs.
func (c *AclCommand) ListAcl() error {
	resources := c.resources()
	return c.withAuthorizer(func(a auth.Authorizer) error {
		var ra resourceAcls
		if len(resources) == 0 {
			all := a.GetAllAcls()
			for r := range all {
				ra.order = append(ra.order, r)
			}
			sort.Slice(ra.order, func(i, j int) bool { return ra.order[i].String() < ra.order[j].String() })
			ra.acls = all
		} else {
			for _, r := range resources {
				ra.put(r, a.GetAcls(r))
			}
		}
		for _, r := range ra.order {
			fmt.Fprintf(c.Out, "Current ACLs for resource `%s`: \n %s \n\n", r, aclLines(ra.acls[r]))
		}
		return nil
	})
}

func (c *AclCommand) confirm(msg string) bool {
	if c.Opts.Options.Has(c.Opts.Force) {
		return true
	}
	fmt.Fprintln(c.Out, msg)
	if c.in == nil {
		c.in = bufio.NewReader(Stdin)
	}
	line, _ := c.in.ReadString('\n')
	return strings.EqualFold(strings.TrimSpace(line), "y")
}

// resources is getResource: the topics, the cluster, the groups, in that order.
func (c *AclCommand) resources() []auth.Resource {
	o, set := c.Opts, c.Opts.Options
	var out []auth.Resource
	seen := map[auth.Resource]bool{}
	add := func(r auth.Resource) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, t := range set.ValuesOf(o.Topic) {
		add(auth.Resource{ResourceType: auth.Topic, Name: strings.TrimSpace(t)})
	}
	if set.Has(o.Cluster) {
		add(auth.ClusterResource)
	}
	for _, g := range set.ValuesOf(o.Group) {
		add(auth.Resource{ResourceType: auth.Group, Name: strings.TrimSpace(g)})
	}
	return out
}

func (c *AclCommand) mustResources() ([]auth.Resource, error) {
	r := c.resources()
	if len(r) == 0 {
		return nil, commandline.PrintUsageAndDie(c.Opts.Parser, "You must provide at least one resource: --topic <topic> or --cluster or --group <group>")
	}
	return r, nil
}

// resourceToAcls is getResourceToAcls: the CLI's ACLs on every resource, or the --producer and
// --consumer sets; then each resource's operations are validated.
func (c *AclCommand) resourceToAcls() (*resourceAcls, error) {
	o, set := c.Opts, c.Opts.Options
	resources, err := c.mustResources()
	if err != nil {
		return nil, err
	}
	ra := &resourceAcls{}
	if !set.Has(o.Producer) && !set.Has(o.Consumer) {
		var ops []auth.Operation
		for _, s := range set.ValuesOf(o.Operations) {
			op, err := auth.OperationFromString(strings.TrimSpace(s))
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
		acls, err := c.acls(ops)
		if err != nil {
			return nil, err
		}
		for _, r := range resources {
			ra.put(r, acls)
		}
	}
	if set.Has(o.Producer) {
		acls, err := c.acls([]auth.Operation{auth.Write, auth.Describe})
		if err != nil {
			return nil, err
		}
		for _, r := range resources {
			if r.ResourceType == auth.Topic {
				ra.put(r, acls)
			}
		}
		create, _ := c.acls([]auth.Operation{auth.Create})
		ra.put(auth.ClusterResource, create)
	}
	if set.Has(o.Consumer) {
		topicAcls, err := c.acls([]auth.Operation{auth.Read, auth.Describe})
		if err != nil {
			return nil, err
		}
		groupAcls, _ := c.acls([]auth.Operation{auth.Read})
		for _, r := range resources {
			var add []auth.Acl
			switch r.ResourceType {
			case auth.Topic:
				add = topicAcls
			case auth.Group:
				add = groupAcls
			default:
				continue
			}
			ra.put(r, union(add, ra.acls[r]))
		}
	}
	for _, r := range ra.order {
		valid := resourceTypeToValidOperations[r.ResourceType]
		for _, a := range ra.acls[r] {
			if !containsOp(valid, a.Operation) {
				names := make([]string, len(valid))
				for i, v := range valid {
					names[i] = string(v)
				}
				return nil, commandline.PrintUsageAndDie(o.Parser, fmt.Sprintf("ResourceType %s only supports operations %s", r.ResourceType, strings.Join(names, ",")))
			}
		}
	}
	return ra, nil
}

func containsOp(ops []auth.Operation, op auth.Operation) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

func union(a, b []auth.Acl) []auth.Acl {
	seen := map[auth.Acl]bool{}
	var out []auth.Acl
	for _, x := range append(append([]auth.Acl{}, a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sortAcls(out)
	return out
}

func sortAcls(acls []auth.Acl) {
	sort.Slice(acls, func(i, j int) bool { return acls[i].String() < acls[j].String() })
}

// acls is getAcl: every allowed principal x operation x allowed host as Allow, and likewise Deny.
func (c *AclCommand) acls(ops []auth.Operation) ([]auth.Acl, error) {
	o, set := c.Opts, c.Opts.Options
	principals := func(spec *commandline.OptionSpec) ([]string, error) {
		var out []string
		for _, s := range set.ValuesOf(spec) {
			p := strings.TrimSpace(s)
			if i := strings.IndexByte(p, ':'); i <= 0 || i == len(p)-1 {
				return nil, fmt.Errorf("expected a string in format principalType:principalName but got %s", p)
			}
			out = append(out, p)
		}
		return out, nil
	}
	hosts := func(hostSpec, principalSpec *commandline.OptionSpec) []string {
		if set.Has(hostSpec) {
			var out []string
			for _, h := range set.ValuesOf(hostSpec) {
				out = append(out, strings.TrimSpace(h))
			}
			return out
		}
		if set.Has(principalSpec) {
			return []string{auth.WildCardHost}
		}
		return nil
	}
	allowed, err := principals(o.AllowPrincipals)
	if err != nil {
		return nil, err
	}
	denied, err := principals(o.DenyPrincipals)
	if err != nil {
		return nil, err
	}
	seen := map[auth.Acl]bool{}
	var out []auth.Acl
	build := func(ps []string, pt auth.PermissionType, hs []string) {
		for _, p := range ps {
			for _, op := range ops {
				for _, h := range hs {
					a := auth.Acl{Principal: p, PermissionType: pt, Host: h, Operation: op}
					if !seen[a] {
						seen[a] = true
						out = append(out, a)
					}
				}
			}
		}
	}
	build(allowed, auth.Allow, hosts(o.AllowHosts, o.AllowPrincipals))
	build(denied, auth.Deny, hosts(o.DenyHosts, o.DenyPrincipals))
	sortAcls(out)
	return out, nil
}

// Run is kafka-acls.sh; it returns the exit code.
//
// Kafka 0.10.2: AclCommand.main.
func Run(_ context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := NewAclCommandOptions(args)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	if opts.Options.Has(opts.Help) {
		return commandline.Fail(stderr, commandline.PrintUsageAndDie(opts.Parser, "Usage:"))
	}
	if err := opts.CheckArgs(); err != nil {
		return commandline.Fail(stderr, err)
	}
	props, _, err := commandline.ParseKeyValueArgs(opts.Options.ValuesOf(opts.AuthorizerProperties), false)
	if err != nil {
		return commandline.Fail(stderr, err)
	}
	logger := commandline.ToolsLogger(stderr, "kafka.admin.AclCommand$")
	c := &AclCommand{Opts: opts, Out: stdout, NewAuthorizer: func() (auth.Authorizer, error) {
		if name := opts.Options.ValueOf(opts.Authorizer); name != auth.SimpleAclAuthorizerClassName {
			return nil, fmt.Errorf("java.lang.ClassNotFoundException: %s (zkafka has only %s)", name, auth.SimpleAclAuthorizerClassName)
		}
		connect, ok := props["zookeeper.connect"]
		if !ok {
			return nil, fmt.Errorf("Missing required configuration \"zookeeper.connect\" which has no default value.")
		}
		z, err := commandline.ConnectZk(connect, 30*time.Second, 30*time.Second, logger, common.SystemTime{})
		if err != nil {
			return nil, err
		}
		a, err := auth.NewSimpleAclAuthorizer(z, props, logger, nil)
		if err != nil {
			z.Close()
			return nil, err
		}
		return closingAuthorizer{a, z}, nil
	}}
	switch {
	case opts.Options.Has(opts.Add):
		err = c.AddAcl()
	case opts.Options.Has(opts.Remove):
		err = c.RemoveAcl()
	default:
		err = c.ListAcl()
	}
	if err != nil {
		if _, ok := err.(*commandline.UsageError); ok {
			return commandline.Fail(stderr, err)
		}
		fmt.Fprintf(stdout, "Error while executing ACL command: %s\n", err)
		return 255 // System.exit(-1)
	}
	return commandline.ExitOK
}

// closingAuthorizer closes the tool's ZooKeeper connection with the authorizer.
type closingAuthorizer struct {
	*auth.SimpleAclAuthorizer
	z *zkutils.ZkUtils
}

func (c closingAuthorizer) Close() {
	c.SimpleAclAuthorizer.Close()
	c.z.Close()
}
