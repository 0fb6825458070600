/** The workbench page of the static site (`siegesim site`): the page `serve` serves, on the workbench worker's transport. */
import { startPage } from '../../serve/page/workbench.js';
import { workerTransport } from './worker-transport.js';

void startPage(workerTransport(new Worker(new URL('workbench.js', document.baseURI).href)));
