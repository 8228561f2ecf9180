import { describeErrorContract } from "@relax-tools/error-conformance";
import * as standin from "../src/index";

// No error class: the stand-in answers its HTTP problems as SGLang's error bodies.
describeErrorContract({ packageName: "@relax/standin", exports: standin, cases: [] });
