// `express4` is Express 4 installed under an alias (npm:express@4) for the Express 4 compatibility tests; its API
// for what the tests use (express(), app.use, app.listen) matches the Express types installed for Express 5.
declare module 'express4' {
  import express from 'express';
  export default express;
}
