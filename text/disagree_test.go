package text

import "testing"

func TestDisagree(t *testing.T) {
	tests := []struct {
		a, b   string
		va, vb string // "" when they do not disagree
	}{
		{"The Halden bridge opened in 1932.", "The Halden bridge opened to traffic in 1934.", "1932", "1934"},
		{"The default port is 7420.", "EmberDB listens on its default port 7070.", "7420", "7070"},
		{"The company was fined $5 million by the regulator.", "The regulator fined the company $7 million.", "5", "7"},
		{"The capital of the country is Canberra.", "The capital of the country is Sydney.", "Canberra", "Sydney"},
		{"The Halden bridge opened in 1932.", "The Halden bridge opened in 1932 after four years.", "", ""},
		{"The bridge opened in 1932.", "The company was founded in 1934.", "", ""},
		{"Version 3 added replication in 2019.", "Version 4 added sharding in 2021.", "", ""},
		{"PostgreSQL supports JSON.", "PostgreSQL supports XML.", "", ""},
		{"The default port is 7420.", "The default port is 7420.", "", ""},
		{"The Halden bridge opened in 1932 after four years of construction.", "The Halden bridge opened to traffic in 1934.", "1932", "1934"},
		{"The company opened an office in 2019.", "The company opened a factory in 2021.", "", ""},
		// Two settings whose names share words are two things; the same
		// setting stated twice with different values is one.
		{"cache.size: The default value is 400.", "cache.sizeLimit: The default value is 20.", "", ""},
		{"The default of pool_max is 16.", "The default of pool_min is 2.", "", ""},
		{"cache.size: The default value is 400.", "The default value of cache.size is 300.", "400", "300"},
		{"The default port is 7420.", "The default port of zapServer is 7070.", "7420", "7070"},
		// Two attributes of one setting are two things, though the
		// setting's name holds a word of one of them ("min").
		{"thread_pool_min default: 100", "thread_pool_min minimum: 5", "", ""},
		{"pool_min default: 100", "pool_min default: 50", "100", "50"},
		// A number followed by "is" names what is described, not a value.
		{"If the field at offset 52 is zero, no map pages are kept.", "The field at offset 64 is true for the lazy mode.", "", ""},
		{"The population in 2019 was 5 million.", "The population in 2020 was 5 million.", "", ""},
	}
	for _, tt := range tests {
		va, vb, ok := Disagree(ReadStatement(tt.a), ReadStatement(tt.b))
		if ok != (tt.va != "") || va != tt.va || vb != tt.vb {
			t.Errorf("Disagree(%q, %q) = %q, %q, %v; want %q, %q", tt.a, tt.b, va, vb, ok, tt.va, tt.vb)
		}
	}
}
