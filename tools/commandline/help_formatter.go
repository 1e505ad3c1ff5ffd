package commandline

import (
	"fmt"
	"io"
	"strings"
)

// helpWidth is jopt-simple's default help width.
const helpWidth = 80

// PrintHelpOn writes the help table: one row per option, sorted by name,
// option column and wrapped description column.
//
// Kafka 0.10.2: joptsimple.OptionParser.printHelpOn (BuiltinHelpFormatter).
func (p *OptionParser) PrintHelpOn(w io.Writer) {
	specs := p.sortedSpecs()
	left := make([]string, len(specs))
	colW := len("Option")
	for i, s := range specs {
		l := "--" + s.name
		switch s.kind {
		case argRequired:
			l += " <" + argLabel(s) + ">"
		case argOptional:
			l += " [" + argLabel(s) + "]"
		}
		left[i] = l
		if len(l) > colW {
			colW = len(l)
		}
	}
	if colW > helpWidth/2 {
		colW = helpWidth / 2
	}
	descW := helpWidth - colW - 1
	row := func(l, d string) {
		fmt.Fprintf(w, "%-*s %s\n", colW, l, d)
	}
	row("Option", "Description")
	row("------", "-----------")
	for i, s := range specs {
		desc := s.desc
		if len(s.defaults) > 0 {
			desc += " (default: " + strings.Join(s.defaults, ", ") + ")"
		}
		lines := wrap(desc, descW)
		l := left[i]
		if len(l) > colW {
			fmt.Fprintln(w, l)
			l = ""
		}
		if len(lines) == 0 {
			lines = []string{""}
		}
		for j, d := range lines {
			if j > 0 {
				l, d = "", "  "+d
			}
			row(l, strings.TrimRight(d, " "))
		}
	}
}

func argLabel(s *OptionSpec) string {
	if s.argDesc == "" {
		return s.typeName
	}
	return s.typeName + ": " + s.argDesc
}

// wrap breaks text into lines of at most width characters at spaces; explicit
// newlines are kept.
func wrap(text string, width int) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(strings.ReplaceAll(para, "\t", "  ")) {
			switch {
			case line == "":
				line = word
			case len(line)+1+len(word) > width-2:
				out = append(out, line)
				line = word
			default:
				line += " " + word
			}
		}
		out = append(out, line)
	}
	return out
}
