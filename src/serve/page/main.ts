/** The workbench page as `siegesim serve` serves it (/assets/app.js): the page on the server's HTTP API. */
import { httpTransport } from './transport.js';
import { startPage } from './workbench.js';

void startPage(httpTransport());
