/**
 * The certificate tests' real ACME server (Debian's pebble) and real DNS peer
 * (pebble-challtestsrv). The launcher lives beside the certificates benchmark, which
 * needs it too and is compiled without the test folder.
 */
export * from '../../bench/support/pebble';
