module netscore.io/conformance

go 1.19
