/**
 * Kernels by system id, for the worker threads: only the hot loops, none of the schema,
 * summary or chart code, so a worker starts fast.
 */
import { crusaderRexKernel } from './crusader-rex/kernel.js';
import { cryHavocKernel } from './cry-havoc/kernel.js';
import { fantasyKernel } from './fantasy/kernel.js';
import { surrenderKernel } from './surrender/kernel.js';
import type { Kernel } from './types.js';

export const KERNELS: Readonly<Record<string, Kernel<unknown>>> = {
  surrender: surrenderKernel as Kernel<unknown>,
  fantasy: fantasyKernel as Kernel<unknown>,
  'cry-havoc': cryHavocKernel as Kernel<unknown>,
  'crusader-rex': crusaderRexKernel as Kernel<unknown>,
};
