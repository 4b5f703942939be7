@_exported import RatecardCore
// The layers below RatecardKit, re-exported for the command line and the tests.
@_exported import RatecardOutput
@_exported import RatecardRelease
@_exported import RatecardSupport
