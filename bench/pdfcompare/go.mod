module github.com/quarryhq/quarry/bench/pdfcompare

go 1.26.8

require github.com/ledongthuc/pdf v0.0.0-20260907135840-6c8c28e0e8a0 // indirect
