// The proxy's view of addresses: the one definition is src/endpoint.ts.
export { parseEndpoint, formatEndpoint, isLoopback, type Endpoint } from '../endpoint.js';
