const require=id=>process.getBuiltinModule(id);
import{c as o}from"./chunk-MWLJGPFR.js";var c=o(((n,t)=>{var e=process.getBuiltinModule("node:path");t.exports=typeof e=="function"?e:Object.create(e)}));export{c as a};
