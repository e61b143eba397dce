/** The network beyond the request the mock answers: the upstream of proxy mode, and what a transport gives. */
/** Filled in by the network adapter (#28). */
export interface Network {}
