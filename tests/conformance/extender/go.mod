module netscore.io/conformance/extender

go 1.19
