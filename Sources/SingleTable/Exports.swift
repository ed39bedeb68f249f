// `RequestDeadline` lived here until it moved to InkraTime, the module of time that every layer
// shares; re-exported so that code which imports SingleTable to reach it keeps compiling.
@_exported import InkraTime
