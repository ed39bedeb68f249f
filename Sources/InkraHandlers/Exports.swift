@_exported import InkraJSON
