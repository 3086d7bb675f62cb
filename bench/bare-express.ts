// The baseline: a bare Express 5 app with the same JSON parsing, in its own process.
import express from 'express';

const app = express();
app.use(express.json());
app.get('/bare', (_req, res) => {
  res.json({ data: [], pagination: { total: 0, limit: 50, offset: 0, hasMore: false } });
});
app.post('/bare', (req, res) => {
  res.status(201).json({ id: 'tsk_bare', ...req.body });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
