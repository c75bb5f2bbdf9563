// The event-stream reader lives with the client (src/client loads only its own files, and reads the
// server's streams with it); the Worker reads upstream streams with the same one.
export { readSse, type SseEvent, SseParser } from "../client/sse";
