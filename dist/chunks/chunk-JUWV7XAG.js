const require=id=>process.getBuiltinModule(id);
import{c as o}from"./chunk-4LDOMB5Z.js";var t=o(((p,e)=>{e.exports=process.getBuiltinModule("node:path")}));export{t as a};
