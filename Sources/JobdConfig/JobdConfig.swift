// JobdConfig was one module of 7,000 lines; it is now the configuration (jobd.conf, the directory of
// job files, its cache) over three modules it re-exports, so that a module importing JobdConfig sees
// what it saw before (issue 37). JobdPolicy, above this one, is imported by name.
@_exported public import JobdSystem
@_exported public import JobdUnitFile
@_exported public import JobdDefinition
