/** Bare Express 5 with a trivial JSON route: the physical limit every other case is compared with. */
import express from 'express';
import { serve } from './child.js';

const app = express();
app.get('/json', (_req, res) => {
  res.json({ hello: 'world' });
});
serve(app);
