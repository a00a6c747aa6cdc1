module svc.io/entry

go 1.26
